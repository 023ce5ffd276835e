package io.providermirror.server.config;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Where the cache lives, how long a provider's version list is fresh before it is refreshed, how much
 * archive data it may hold ({@code maxSize}; unbounded when absent), how much heap the metadata kept in
 * memory may take ({@code metadataMemory}; a quarter of the maximum heap when absent), how long an origin's
 * "not found" is remembered ({@code notFoundTtl}), and the free space kept on the cache's file system
 * ({@code minFreeSpace}; when absent the smaller of 1 GiB and 5% of the file system). With {@code s3} the cache of
 * record is an S3-compatible bucket ({@link S3Config}); {@code maxSize} then bounds the archives in the bucket.
 * {@code retention} removes archives no client has requested for a while ({@link RetentionConfig}).
 */
public record CacheConfig(
        Path directory,
        Duration indexTtl,
        DataSize maxSize,
        DataSize metadataMemory,
        Duration notFoundTtl,
        DataSize minFreeSpace,
        S3Config s3,
        RetentionConfig retention) {

    /** Default freshness of version lists. */
    public static final Duration DEFAULT_INDEX_TTL = Duration.ofMinutes(15);
    /**
     * How long a provider its origin does not have is answered 404 without asking again: short enough that a
     * provider published now is found within a minute, long enough that a flood of made-up names costs the
     * origin one request per name and minute.
     */
    public static final Duration DEFAULT_NOT_FOUND_TTL = Duration.ofMinutes(1);

    public CacheConfig {
        directory = (directory == null ? Path.of("mirror-data") : directory).normalize();
        indexTtl = indexTtl == null ? DEFAULT_INDEX_TTL : indexTtl;
        retention = retention == null ? RetentionConfig.off() : retention;
        notFoundTtl = notFoundTtl == null ? DEFAULT_NOT_FOUND_TTL : notFoundTtl;
        if (notFoundTtl.isNegative()) {
            throw new IllegalArgumentException(
                    "notFoundTtl: " + notFoundTtl + " (expected: >= 0; 0 remembers nothing)");
        }
        if (metadataMemory != null && metadataMemory.bytes() < 1024 * 1024) {
            throw new IllegalArgumentException(
                    "metadataMemory: " + metadataMemory.bytes() + " bytes (expected: at least 1MiB)");
        }
        if (indexTtl.isNegative()) {
            throw new IllegalArgumentException("indexTtl: " + indexTtl + " (expected: >= 0)");
        }
    }
}
