package io.providermirror.cache;

import java.io.IOException;
import java.util.List;

/**
 * The free space a {@link FileBlobStore} keeps on its file system: least recently used blobs are evicted to
 * restore it, no write starts below it, and writes started above it may share its upper half between them,
 * never more, however many run at once.
 */
final class FreeSpaceWatermark {

    /** Deletes blobs already taken out of the index. */
    @FunctionalInterface
    interface Deletion {
        void delete(List<CacheKey> victims, String why);
    }

    private final long minFreeBytes;
    private final FileBlobStore.FreeSpace freeSpace;

    FreeSpaceWatermark(long minFreeBytes, FileBlobStore.FreeSpace freeSpace) {
        if (minFreeBytes < 0) {
            throw new IllegalArgumentException("minFreeBytes: " + minFreeBytes + " (expected: >= 0)");
        }
        this.minFreeBytes = minFreeBytes;
        this.freeSpace = freeSpace;
    }

    /**
     * Evicts least recently used blobs nobody reads (never {@code keep}) until the file system has the watermark
     * free, provided that evicting them is enough; otherwise evicts nothing. Without a watermark the file system
     * is never asked.
     *
     * @return the usable bytes afterwards
     */
    long restore(BlobIndex index, CacheKey keep, Deletion deletion) throws IOException {
        if (minFreeBytes == 0) {
            return Long.MAX_VALUE;
        }
        long free = freeSpace.usableBytes();
        if (free >= minFreeBytes) {
            return free;
        }
        List<CacheKey> victims = index.evictToFree(minFreeBytes - free, keep);
        if (victims.isEmpty()) {
            return free;
        }
        deletion.delete(victims, "to keep " + minFreeBytes + " bytes free on the cache's file system");
        return freeSpace.usableBytes();
    }

    /** Refuses to start a write when {@code free} bytes, what is left after evicting, is below the watermark. */
    void checkStart(long free) throws InsufficientStorageException {
        if (free < minFreeBytes) {
            throw new InsufficientStorageException("the cache's file system has " + free + " bytes free, below the "
                    + minFreeBytes + " bytes it must keep, and evicting the archives nobody is reading cannot free"
                    + " enough");
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
