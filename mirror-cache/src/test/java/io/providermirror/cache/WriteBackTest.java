package io.providermirror.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Blobs being written are flushed to disk in the background as they grow, one flush of a file at a time. */
final class WriteBackTest {

    private static final CacheKey KEY = CacheKey.of("example.test", "acme", "big", "1.0.0", "a.zip");
    private static final int MIB = 1024 * 1024;

    @TempDir
    Path root;

    private final List<Runnable> flushes = new ArrayList<>();

    private FileBlobStore store() throws IOException {
        return new FileBlobStore(
                root,
                Clock.systemUTC(),
                Long.MAX_VALUE,
                0,
                () -> Long.MAX_VALUE,
                file -> FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                new WriteBack(flushes::add));
    }

    private static void write(BlobWrite write, int mebibytes) throws IOException {
        for (int i = 0; i < mebibytes; i++) {
            write.write(ByteBuffer.allocate(MIB));
        }
    }

    @Test
    void aBlobBeingWrittenIsFlushedEachTimeEnoughMoreWasWrittenOneFlushAtATime() throws IOException {
        BlobWrite write = store().create(KEY);

        write(write, 7);
        assertThat(flushes).as("less than FLUSH_BYTES written").isEmpty();
        write(write, 1);
        assertThat(flushes).as("FLUSH_BYTES written").hasSize(1);
        write(write, 16);
        assertThat(flushes)
                .as("no second flush of the file while the first has not run")
                .hasSize(1);

        flushes.get(0).run();
        write(write, 8);
        assertThat(flushes).as("the next flush once the first ran").hasSize(2);

        StoredBlob blob = write.commit(Sha256Of.zeros(32L * MIB));
        assertThat(blob.size()).isEqualTo(32L * MIB);
    }

    @Test
    void aFlushThatRunsAfterTheCommitClosedTheFileChangesNothing() throws IOException {
        FileBlobStore store = store();
        BlobWrite write = store.create(KEY);
        write(write, 8);
        write.commit(Sha256Of.zeros(8L * MIB));

        flushes.get(0).run();

        assertThat(store.find(KEY))
                .hasValueSatisfying(blob -> assertThat(blob.size()).isEqualTo(8L * MIB));
    }

    @Test
    void aSmallBlobIsNotFlushedBeforeItsCommit() throws IOException {
        BlobWrite write = store().create(KEY);
        write.write(ByteBuffer.allocate(128 * 1024));
        write.commit(Sha256Of.zeros(128 * 1024));

        assertThat(flushes).isEmpty();
    }

    /** The sha256 of {@code count} zero bytes, as a commit records it. */
    private static final class Sha256Of {
        static String zeros(long count) {
            try {
                java.security.MessageDigest digest = java.security.MessageDigest.getInstance("SHA-256");
                byte[] block = new byte[MIB];
                for (long left = count; left > 0; left -= block.length) {
                    digest.update(block, 0, (int) Math.min(left, block.length));
                }
                return java.util.HexFormat.of().formatHex(digest.digest());
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
