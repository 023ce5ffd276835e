package io.providermirror.server.config;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Where the cache lives, how long a provider's version list is fresh before it is refreshed, and how much
 * archive data it may hold ({@code maxSize}; unbounded when absent).
 */
public record CacheConfig(Path directory, Duration indexTtl, DataSize maxSize) {

    /** Default freshness of version lists. */
    public static final Duration DEFAULT_INDEX_TTL = Duration.ofMinutes(15);

    public CacheConfig {
        directory = (directory == null ? Path.of("mirror-data") : directory).normalize();
        indexTtl = indexTtl == null ? DEFAULT_INDEX_TTL : indexTtl;
        if (indexTtl.isNegative()) {
            throw new IllegalArgumentException("indexTtl: " + indexTtl + " (expected: >= 0)");
        }
    }
}
