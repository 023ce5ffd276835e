package io.providermirror.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class FileBlobStoreTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC);
    private static final CacheKey KEY = CacheKey.of("example.test", "acme", "fake", "1.0.0", "a.zip");
    private static final String SHA = "0".repeat(64);

    @TempDir
    Path root;

    @Test
    void nothingIsVisibleUntilCommit() throws IOException {
        FileBlobStore store = new FileBlobStore(root, CLOCK);
        FileBlobWrite write = (FileBlobWrite) store.create(KEY);
        write.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)));
        assertThat(store.find(KEY)).isEmpty();
        assertThat(Files.readString(write.temporaryFile())).isEqualTo("hello");

        StoredBlob blob = write.commit(SHA);

        assertThat(store.find(KEY)).contains(blob);
        assertThat(blob.size()).isEqualTo(5);
        assertThat(blob.committedAt()).isEqualTo(CLOCK.instant());
        assertThat(Files.readString(store.file(blob.key()))).isEqualTo("hello");
        assertThat(store.file(blob.key())).startsWith(root);
        assertThat(write.temporaryFile()).doesNotExist();
    }

    @Test
    void abortLeavesNothingBehind() throws IOException {
        FileBlobStore store = new FileBlobStore(root, CLOCK);
        try (BlobWrite write = store.create(KEY)) {
            write.write(ByteBuffer.wrap(new byte[10]));
        }
        assertThat(store.find(KEY)).isEmpty();
        try (Stream<Path> files = Files.list(root.resolve("tmp"))) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void aReaderOpenedBeforeCommitKeepsReadingAfterIt() throws IOException {
        FileBlobStore store = new FileBlobStore(root, CLOCK);
        BlobWrite write = store.create(KEY);
        write.write(ByteBuffer.wrap("abc".getBytes(StandardCharsets.UTF_8)));
        try (var reader = write.openReader()) {
            write.write(ByteBuffer.wrap("def".getBytes(StandardCharsets.UTF_8)));
            write.commit(SHA);
            ByteBuffer buffer = ByteBuffer.allocate(6);
            reader.position(0).read(buffer);
            assertThat(new String(buffer.array(), StandardCharsets.UTF_8)).isEqualTo("abcdef");
        }
        try (var reader = write.openReader()) {
            assertThat(reader.size())
                    .as("after commit a reader opens the committed file")
                    .isEqualTo(6);
        }
    }

    @Test
    void leftoverTemporaryFilesAreRemovedOnStart() throws IOException {
        Files.createDirectories(root.resolve("tmp"));
        Files.writeString(root.resolve("tmp/crashed.part"), "half a download");
        new FileBlobStore(root, CLOCK);
        assertThat(root.resolve("tmp/crashed.part")).doesNotExist();
    }

    @Test
    void aBlobWhoseSizeChangedOnDiskIsDroppedNotServed() throws IOException {
        FileBlobStore store = new FileBlobStore(root, CLOCK);
        BlobWrite write = store.create(KEY);
        write.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)));
        StoredBlob blob = write.commit(SHA);
        Files.writeString(store.file(blob.key()), "hel");
        assertThat(store.find(KEY)).isEmpty();
        assertThat(store.file(blob.key())).doesNotExist();
    }

    @ParameterizedTest
    @ValueSource(strings = {"shorter", "deleted"})
    void theHotPathLetsGoOfAFileThatChangedBehindItsBack(String change) throws IOException {
        FileBlobStore store = new FileBlobStore(root, CLOCK, 10);
        BlobWrite write = store.create(KEY);
        write.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)));
        StoredBlob blob = write.commit(SHA);
        try (OpenBlob open = store.open(KEY).orElseThrow()) {
            assertThat(open.blob()).isEqualTo(blob);
        }
        if (change.equals("shorter")) {
            Files.writeString(store.file(KEY), "hel");
        } else {
            Files.delete(store.file(KEY));
        }

        assertThat(store.openVerified(KEY)).isEmpty();

        // Had the failed hot path kept its pin, the changed blob could never be evicted, and the newer one would be.
        CacheKey newer = CacheKey.of("example.test", "acme", "fake", "1.0.0", "b.zip");
        BlobWrite second = store.create(newer);
        second.write(ByteBuffer.wrap("12345678".getBytes(StandardCharsets.UTF_8)));
        second.commit(SHA);
        assertThat(store.find(newer)).isPresent();
    }

    /**
     * Once the hot path has opened a small blob, it holds its content: the next readers are served without opening
     * the file (here the file is gone behind the store's back and the content still comes, as it would from a
     * descriptor opened before), until the store lets go of the blob (a removal, a purge, an eviction).
     */
    @Test
    void aSmallBlobsContentIsHeldAfterTheHotPathOpenedItUntilTheStoreLetsGoOfIt() throws IOException {
        FileBlobStore store = new FileBlobStore(root, CLOCK);
        BlobWrite write = store.create(KEY);
        write.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)));
        write.commit(Sha256.hex(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8))));
        store.open(KEY).orElseThrow().close();
        try (OpenBlob first = store.openVerified(KEY).orElseThrow()) {
            assertThat(first.held()).as("read once from the file, and held").isPresent();
        }

        Files.delete(store.file(KEY));
        try (OpenBlob held = store.openVerified(KEY).orElseThrow()) {
            assertThat(StandardCharsets.UTF_8.decode(held.held().orElseThrow()).toString())
                    .isEqualTo("hello");
            assertThat(new String(held.inputStream().readAllBytes(), StandardCharsets.UTF_8))
                    .as("its channel reads the same content")
                    .isEqualTo("hello");
        }

        store.remove(KEY);
        assertThat(store.openVerified(KEY)).as("removed: nothing held any more").isEmpty();
    }

    /**
     * The content read to be held is hashed first: an archive altered on disk with its size kept (a damaged disk, a
     * hand) after it was verified is removed, never held and served from memory ever after.
     */
    @Test
    void aSmallBlobAlteredOnDiskWithItsSizeKeptIsRemovedNotHeld() throws IOException {
        FileBlobStore store = new FileBlobStore(root, CLOCK);
        BlobWrite write = store.create(KEY);
        write.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)));
        write.commit(Sha256.hex(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8))));
        store.open(KEY).orElseThrow().close();
        Files.writeString(store.file(KEY), "jello");

        assertThat(store.openVerified(KEY)).isEmpty();
        assertThat(store.file(KEY)).as("removed, to be fetched again").doesNotExist();
        assertThat(store.find(KEY)).isEmpty();
    }

    @Test
    void aBlobOverTheHeldSizeIsReadFromItsFileEachTime() throws IOException {
        FileBlobStore store = new FileBlobStore(root, CLOCK);
        byte[] content = new byte[FileBlobStore.HELD_BLOB_BYTES + 1];
        BlobWrite write = store.create(KEY);
        write.write(ByteBuffer.wrap(content));
        write.commit(Sha256.hex(ByteBuffer.wrap(content)));
        store.open(KEY).orElseThrow().close();
        try (OpenBlob open = store.openVerified(KEY).orElseThrow()) {
            assertThat(open.held()).isEmpty();
            assertThat(open.channel()).isInstanceOf(java.nio.channels.FileChannel.class);
        }
    }

    @Test
    void aBlobWithoutItsSidecarIsNotThere() throws IOException {
        FileBlobStore store = new FileBlobStore(root, CLOCK);
        BlobWrite write = store.create(KEY);
        write.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)));
        StoredBlob blob = write.commit(SHA);
        Files.delete(store.file(blob.key()).resolveSibling("a.zip.meta"));
        assertThat(store.find(KEY)).isEmpty();
    }

    @Test
    void keysCannotEscapeTheStore() {
        assertThatThrownBy(() -> CacheKey.of("..", "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CacheKey.of("a/b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CacheKey.of(".hidden")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CacheKey.of("a\u0000b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CacheKey.of("a..b")).isInstanceOf(IllegalArgumentException.class);
        assertThat(CacheKey.of("example.test:8443", "x", "1.0.0+b.1")
                        .resolveUnder(root)
                        .startsWith(root))
                .isTrue();
    }
}
