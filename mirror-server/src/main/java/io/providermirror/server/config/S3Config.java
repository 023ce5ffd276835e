package io.providermirror.server.config;

import java.net.URI;

/**
 * The bucket that is the cache of record when present ({@code cache.s3}): archives and metadata documents live
 * there, shared by every instance on it; {@code cache.directory} still holds temporary files, generated TLS files
 * and the local tier. {@code endpoint} is absent for AWS; {@code region} defaults to {@code us-east-1};
 * {@code pathStyleAccess} (MinIO and most S3-compatible servers) to false; {@code prefix} (to share a bucket) to
 * none; {@code localTierSize}, the local disk tier of hot archives in front of the bucket, to 2 GiB;
 * {@code fillLeaseDuration}, how long a fill lease of an instance that died keeps the others waiting, to 30 s. Credentials
 * come from the AWS SDK's default chain, never from this file.
 */
public record S3Config(
        URI endpoint,
        String bucket,
        String region,
        Boolean pathStyleAccess,
        String prefix,
        DataSize localTierSize,
        java.time.Duration fillLeaseDuration) {

    /** The default local tier. */
    public static final DataSize DEFAULT_LOCAL_TIER_SIZE = new DataSize(2L << 30);

    /**
     * How long a fill lease lasts unless its holder renews it (it does every third of that while it fills): how
     * long the fleet waits for a crashed holder before another instance takes its fill over.
     */
    public static final java.time.Duration DEFAULT_FILL_LEASE_DURATION = java.time.Duration.ofSeconds(30);

    public S3Config {
        if (bucket == null || bucket.isBlank()) {
            throw new IllegalArgumentException("bucket: missing (expected: the name of an existing bucket)");
        }
        if (endpoint != null
                && (endpoint.getHost() == null
                        || !("http".equals(endpoint.getScheme()) || "https".equals(endpoint.getScheme())))) {
            throw new IllegalArgumentException(
                    "endpoint: '" + endpoint + "' (expected: an http or https URL, or nothing for AWS)");
        }
        region = region == null || region.isBlank() ? "us-east-1" : region;
        pathStyleAccess = pathStyleAccess != null && pathStyleAccess;
        prefix = prefix == null ? "" : prefix;
        if (prefix.startsWith("/") || prefix.contains("..")) {
            throw new IllegalArgumentException(
                    "prefix: '" + prefix + "' (expected: a relative key prefix such as 'mirror/', no '..')");
        }
        localTierSize = localTierSize == null ? DEFAULT_LOCAL_TIER_SIZE : localTierSize;
        fillLeaseDuration = fillLeaseDuration == null ? DEFAULT_FILL_LEASE_DURATION : fillLeaseDuration;
        if (fillLeaseDuration.compareTo(java.time.Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("fillLeaseDuration: " + fillLeaseDuration
                    + " (expected: at least 1s; it must be well above the store's latency and the clocks' skew)");
        }
    }
}
