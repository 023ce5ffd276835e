package io.providermirror.server.config;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Where the cache lives, how long a provider's version list is fresh before it is refreshed, how much
 * archive data it may hold ({@code maxSize}; unbounded when absent), and how much heap the metadata kept in
 * memory may take ({@code metadataMemory}; a quarter of the maximum heap when absent).
 */
public record CacheConfig(Path directory, Duration indexTtl, DataSize maxSize, DataSize metadataMemory) {

    /** Default freshness of version lists. */
    public static final Duration DEFAULT_INDEX_TTL = Duration.ofMinutes(15);

    public CacheConfig {
        directory = (directory == null ? Path.of("mirror-data") : directory).normalize();
        indexTtl = indexTtl == null ? DEFAULT_INDEX_TTL : indexTtl;
        if (metadataMemory != null && metadataMemory.bytes() < 1024 * 1024) {
            throw new IllegalArgumentException("metadataMemory: " + metadataMemory.bytes()
                    + " bytes (expected: at least 1MiB)");
        }
        if (indexTtl.isNegative()) {
            throw new IllegalArgumentException("indexTtl: " + indexTtl + " (expected: >= 0)");
        }
    }
}
