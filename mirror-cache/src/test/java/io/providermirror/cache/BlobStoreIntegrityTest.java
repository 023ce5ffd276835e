package io.providermirror.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the blob store does when the disk lies, fills up, or runs out of room. */
final class BlobStoreIntegrityTest {

    @TempDir
    Path root;

    private static CacheKey key(String name) {
        return CacheKey.of("example.test", "acme", "x", "1.0.0", name + ".zip");
    }

    private static StoredBlob commit(BlobStore store, CacheKey key, String content) throws Exception {
        BlobWrite write = store.create(key);
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        write.write(ByteBuffer.wrap(bytes));
        return write.commit(
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)));
    }

    private static String read(OpenBlob open) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate((int) open.blob().size());
        open.channel().position(0).read(buffer);
        return new String(buffer.array(), StandardCharsets.UTF_8);
    }

    @Test
    void anArchiveAlteredOnDiskIsCaughtTheFirstTimeItIsServedAfterStartUp() throws Exception {
        FileBlobStore store = new FileBlobStore(root, Clock.systemUTC());
        StoredBlob blob = commit(store, key("a"), "genuine");
        Files.writeString(store.file(blob.key()), "GENUINE");

        FileBlobStore restarted = new FileBlobStore(root, Clock.systemUTC());
        assertThat(restarted.open(key("a"))).isEmpty();
        assertThat(store.file(blob.key())).doesNotExist();
        assertThat(restarted.count()).isZero();
    }

    @Test
    void verifyAllHashesEverythingAndRemovesWhatNoLongerMatches() throws Exception {
        FileBlobStore store = new FileBlobStore(root, Clock.systemUTC());
        commit(store, key("good"), "good");
        StoredBlob bad = commit(store, key("bad"), "bad!");
        Files.writeString(store.file(bad.key()), "BAD!");

        FileBlobStore.VerificationReport report = new FileBlobStore(root, Clock.systemUTC()).verifyAll();
        assertThat(report.checked()).isEqualTo(2);
        assertThat(report.removed()).containsExactly(key("bad"));
        try (OpenBlob good =
                new FileBlobStore(root, Clock.systemUTC()).open(key("good")).orElseThrow()) {
            assertThat(read(good)).isEqualTo("good");
        }
    }

    @Test
    void startUpIndexesCommittedBlobsAndDropsUncommittedOnes() throws Exception {
        FileBlobStore store = new FileBlobStore(root, Clock.systemUTC());
        commit(store, key("a"), "aaaa");
        commit(store, key("b"), "bbbbbb");
        Path orphan = root.resolve("archives/example.test/acme/x/1.0.0/orphan.zip");
        Files.writeString(orphan, "moved into place, but the crash came before its sidecar");

        FileBlobStore restarted = new FileBlobStore(root, Clock.systemUTC());
        assertThat(restarted.count()).isEqualTo(2);
        assertThat(restarted.totalBytes()).isEqualTo(10);
        assertThat(orphan).doesNotExist();
    }

    @Test
    void theSizeBoundEvictsTheLeastRecentlyUsedArchiveThatNobodyReads() throws Exception {
        FileBlobStore store = new FileBlobStore(root, Clock.systemUTC(), 10);
        commit(store, key("a"), "aaaa");
        commit(store, key("b"), "bbbb");
        try (OpenBlob servedA = store.open(key("a")).orElseThrow()) {
            store.open(key("b")).orElseThrow().close();
            // a is the least recently used but is being served; b goes instead.
            commit(store, key("c"), "cccc");
            assertThat(store.find(key("b"))).isEmpty();
            assertThat(read(servedA)).isEqualTo("aaaa");
        }
        assertThat(store.find(key("a"))).isPresent();
        assertThat(store.find(key("c"))).isPresent();
        assertThat(store.totalBytes()).isEqualTo(8);
        assertThat(store.evictions()).isEqualTo(1);

        // Finishing a read counts as a use: c is now the least recently used.
        commit(store, key("d"), "dddd");
        assertThat(store.find(key("c"))).isEmpty();
        assertThat(store.find(key("a"))).isPresent();
        assertThat(store.totalBytes()).isEqualTo(8);
    }

    @Test
    void aFullDiskFailsTheWriteLosesNothingCommittedAndTheStoreRecovers() throws Exception {
        AtomicBoolean full = new AtomicBoolean();
        FileBlobStore store = new FileBlobStore(root, Clock.systemUTC(), Long.MAX_VALUE, file -> {
            FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            return new FailingChannel(channel, full);
        });
        commit(store, key("kept"), "committed before the disk filled up");

        full.set(true);
        BlobWrite write = store.create(key("new"));
        assertThatThrownBy(() -> write.write(ByteBuffer.wrap(new byte[100])))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("No space left on device");
        write.abort();
        BlobWrite almost = store.create(key("sidecar"));
        full.set(false);
        almost.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        full.set(true);
        assertThatThrownBy(() -> almost.commit("0".repeat(64)))
                .as("the sidecar cannot be written")
                .isInstanceOf(IOException.class);
        try (Stream<Path> leftovers = Files.list(root.resolve("tmp"))) {
            assertThat(leftovers).as("no half-written files stay behind").isEmpty();
        }
        assertThat(store.find(key("new"))).isEmpty();
        try (OpenBlob kept = store.open(key("kept")).orElseThrow()) {
            assertThat(read(kept)).isEqualTo("committed before the disk filled up");
        }

        full.set(false);
        commit(store, key("new"), "space came back");
        try (OpenBlob recovered = store.open(key("new")).orElseThrow()) {
            assertThat(read(recovered)).isEqualTo("space came back");
        }
    }

    /** A channel that fails every write while the disk is "full". */
    private static final class FailingChannel implements SeekableByteChannel {
        private final FileChannel delegate;
        private final AtomicBoolean full;

        FailingChannel(FileChannel delegate, AtomicBoolean full) {
            this.delegate = delegate;
            this.full = full;
        }

        @Override
        public int write(ByteBuffer source) throws IOException {
            if (full.get()) {
                throw new IOException("No space left on device");
            }
            return delegate.write(source);
        }

        @Override
        public int read(ByteBuffer destination) throws IOException {
            return delegate.read(destination);
        }

        @Override
        public long position() throws IOException {
            return delegate.position();
        }

        @Override
        public SeekableByteChannel position(long position) throws IOException {
            delegate.position(position);
            return this;
        }

        @Override
        public long size() throws IOException {
            return delegate.size();
        }

        @Override
        public SeekableByteChannel truncate(long size) throws IOException {
            delegate.truncate(size);
            return this;
        }

        @Override
        public boolean isOpen() {
            return delegate.isOpen();
        }

        @Override
        public void close() throws IOException {
            delegate.close();
        }
    }
}
