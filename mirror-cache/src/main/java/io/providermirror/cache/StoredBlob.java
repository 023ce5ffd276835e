package io.providermirror.cache;

import java.time.Instant;

/** A committed blob: its key, size, sha256 (lowercase hex) and commit time; where its bytes live is the store's. */
public record StoredBlob(CacheKey key, long size, String sha256, Instant committedAt) {}
