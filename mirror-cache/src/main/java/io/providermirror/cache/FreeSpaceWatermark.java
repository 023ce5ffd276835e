package io.providermirror.cache;

import java.io.IOException;

/**
 * The free space a {@link FileBlobStore} keeps on its file system: no write starts below it, and writes
 * started above it may share its upper half between them, never more, however many run at once.
 */
final class FreeSpaceWatermark {

    private final long minFreeBytes;
    private final FileBlobStore.FreeSpace freeSpace;

    FreeSpaceWatermark(long minFreeBytes, FileBlobStore.FreeSpace freeSpace) {
        if (minFreeBytes < 0) {
            throw new IllegalArgumentException("minFreeBytes: " + minFreeBytes + " (expected: >= 0)");
        }
        this.minFreeBytes = minFreeBytes;
        this.freeSpace = freeSpace;
    }

    long minFreeBytes() {
        return minFreeBytes;
    }

    /** Whether there is a watermark at all (0: none, and the file system is never asked). */
    boolean enabled() {
        return minFreeBytes > 0;
    }

    long usableBytes() throws IOException {
        return freeSpace.usableBytes();
    }

    /** Refuses to start a write when {@code free} bytes, what is left after evicting, is below the watermark. */
    void checkStart(long free) throws InsufficientStorageException {
        if (free < minFreeBytes) {
            throw new InsufficientStorageException("the cache's file system has " + free + " bytes free, below the "
                    + minFreeBytes + " bytes it must keep, and evicting the archives nobody is reading cannot free enough");
        }
    }

    /** Refuses to append {@code bytes} more to {@code key} when that would leave less than half the watermark. */
    void checkAppend(CacheKey key, long bytes) throws IOException {
        if (minFreeBytes > 0 && freeSpace.usableBytes() - bytes < minFreeBytes / 2) {
            throw new InsufficientStorageException("the cache's file system has " + freeSpace.usableBytes()
                    + " bytes free, less than half the " + minFreeBytes + " bytes it must keep; " + key
                    + " is not written further");
        }
    }
}
