package io.providermirror.cache;

import java.nio.file.Path;
import java.time.Instant;

/** A committed blob: its file, size, sha256 (lowercase hex) and commit time. */
public record StoredBlob(CacheKey key, Path path, long size, String sha256, Instant committedAt) {
}
