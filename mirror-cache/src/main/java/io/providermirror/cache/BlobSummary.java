package io.providermirror.cache;

import java.time.Instant;

/** A committed blob as the store's index knows it, for listings: no file is read to make one. */
public record BlobSummary(CacheKey key, long size, Instant committedAt) {}
