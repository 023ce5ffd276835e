package io.providermirror.cache;

import java.time.Instant;

/**
 * A committed blob as the store's index knows it, for listings: no file is read to make one. {@code lastUsed} is when
 * it was last read as far as the index knows (the same record that orders it for eviction): its commit, a read since,
 * or (on disk) the file's access time at start-up, whichever is latest.
 */
public record BlobSummary(CacheKey key, long size, Instant committedAt, Instant lastUsed) {

    /** A blob not read since it was committed, as far as the index knows. */
    public BlobSummary(CacheKey key, long size, Instant committedAt) {
        this(key, size, committedAt, committedAt);
    }
}
