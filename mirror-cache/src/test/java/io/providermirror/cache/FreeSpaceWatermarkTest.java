package io.providermirror.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store keeps a minimum of free space on its file system, which a test disk of a few hundred bytes stands
 * in for: it evicts the least recently used archives to keep it, refuses a new archive when that cannot work,
 * and never evicts in vain or touches an archive someone is reading.
 */
final class FreeSpaceWatermarkTest {

    private static final String SHA = "0".repeat(64);

    @TempDir
    Path root;

    /** A disk of {@code capacity} bytes holding the store's archives and {@code others} bytes of other files. */
    private final AtomicLong others = new AtomicLong();

    private FileBlobStore store(long capacity, long minFree) throws IOException {
        FileBlobStore[] store = new FileBlobStore[1];
        store[0] = new FileBlobStore(
                root,
                Clock.systemUTC(),
                Long.MAX_VALUE,
                minFree,
                () -> capacity - others.get() - (store[0] == null ? 0 : store[0].totalBytes()),
                file -> FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
        return store[0];
    }

    private static CacheKey key(String name) {
        return CacheKey.of("example.test", "acme", "fake", "1.0.0", name + ".zip");
    }

    private static void commit(BlobStore store, String name, int size) throws IOException {
        try (BlobWrite write = store.create(key(name))) {
            write.write(ByteBuffer.wrap(new byte[size]));
            write.commit(SHA);
        }
    }

    /**
     * An archive moved into place is committed even when the file system cannot say how much is free just after:
     * its readers are not told that nothing was cached while it is.
     */
    @Test
    void anArchiveIsCommittedWhenTheFreeSpaceCannotBeReadAfterItsMove() throws IOException {
        java.util.concurrent.atomic.AtomicBoolean broken = new java.util.concurrent.atomic.AtomicBoolean();
        FileBlobStore store = new FileBlobStore(
                root,
                Clock.systemUTC(),
                Long.MAX_VALUE,
                150,
                () -> {
                    if (broken.get()) {
                        throw new IOException("statfs: input/output error");
                    }
                    return 300;
                },
                file -> FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
        try (BlobWrite write = store.create(key("a"))) {
            write.write(ByteBuffer.wrap(new byte[100]));
            broken.set(true);

            assertThat(write.commit(SHA).size()).isEqualTo(100);
        }

        assertThat(store.find(key("a"))).isPresent();
        assertThat(Files.size(store.file(key("a")))).isEqualTo(100);
    }

    @Test
    void theLeastRecentlyUsedArchivesAreEvictedToKeepTheFreeSpace() throws IOException {
        FileBlobStore store = store(300, 150);
        commit(store, "a", 100);
        commit(store, "b", 100);

        assertThat(store.find(key("a")))
                .as("evicted: 100 bytes were free, 150 must be")
                .isEmpty();
        assertThat(store.find(key("b"))).isPresent();
        assertThat(store.evictions()).isEqualTo(1);

        commit(store, "c", 50);
        assertThat(store.find(key("b"))).isPresent();
        assertThat(store.find(key("c"))).isPresent();
    }

    @Test
    void aNewArchiveIsRefusedWhenEvictingCannotFreeEnoughAndWhatIsCachedStays() throws IOException {
        FileBlobStore store = store(300, 150);
        commit(store, "a", 100);
        others.set(120);

        // 80 bytes free; evicting "a" would give 180, but someone is reading it.
        try (OpenBlob reading = store.open(key("a")).orElseThrow()) {
            assertThatThrownBy(() -> store.create(key("b")))
                    .isInstanceOf(InsufficientStorageException.class)
                    .hasMessageContaining("80 bytes free")
                    .hasMessageContaining("150 bytes");
            assertThat(reading.blob().size()).isEqualTo(100);
        }
        // Something else took the disk: evicting every archive would not be enough, so none is evicted.
        others.set(250);
        assertThatThrownBy(() -> store.create(key("b"))).isInstanceOf(InsufficientStorageException.class);
        assertThat(store.find(key("a"))).as("not evicted in vain").isPresent();
        try (Stream<Path> leftovers = Files.list(root.resolve("tmp"))) {
            assertThat(leftovers)
                    .as("a refused archive leaves no temporary file")
                    .isEmpty();
        }

        others.set(0);
        commit(store, "b", 100);
        assertThat(store.find(key("b"))).isPresent();
    }

    @Test
    void aWriteInProgressStopsWhenLessThanHalfTheMinimumIsLeft() throws IOException {
        FileBlobStore store = store(300, 150);
        try (BlobWrite write = store.create(key("a"))) {
            write.write(ByteBuffer.wrap(new byte[10]));
            // Other writes took the disk down to 80 bytes free: 70 more would leave 10, under half of 150.
            others.set(220);
            assertThatThrownBy(() -> write.write(ByteBuffer.wrap(new byte[70])))
                    .isInstanceOf(InsufficientStorageException.class)
                    .hasMessageContaining("less than half");
        }
        assertThat(store.find(key("a"))).isEmpty();
        try (Stream<Path> leftovers = Files.list(root.resolve("tmp"))) {
            assertThat(leftovers).isEmpty();
        }
    }
}
