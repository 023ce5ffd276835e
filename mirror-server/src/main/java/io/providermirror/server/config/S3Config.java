package io.providermirror.server.config;

import java.net.URI;

/**
 * The bucket that is the cache of record when present ({@code cache.s3}): archives and metadata documents live
 * there, shared by every instance on it; {@code cache.directory} still holds temporary files, generated TLS files
 * and the local tier. {@code endpoint} is absent for AWS; {@code region} defaults to {@code us-east-1};
 * {@code pathStyleAccess} (MinIO and most S3-compatible servers) to false; {@code prefix} (to share a bucket) to
 * none; {@code localTierSize}, the local disk tier of hot archives in front of the bucket, to 2 GiB;
 * {@code fillLeaseDuration}, how long a fill lease of an instance that died keeps the others waiting, to 30 s;
 * {@code redirectArchives}, answering requests for archives committed in the bucket with a redirect to a presigned
 * URL of the object, to false; {@code redirectUrlTtl}, how long such a URL is valid, to 5 minutes;
 * {@code redirectEndpoint}, the address clients reach the store at, to {@code endpoint}. Credentials come from the
 * AWS SDK's default chain, never from this file.
 */
public record S3Config(
        URI endpoint,
        String bucket,
        String region,
        Boolean pathStyleAccess,
        String prefix,
        DataSize localTierSize,
        java.time.Duration fillLeaseDuration,
        Boolean redirectArchives,
        java.time.Duration redirectUrlTtl,
        URI redirectEndpoint) {

    /** The default local tier. */
    public static final DataSize DEFAULT_LOCAL_TIER_SIZE = new DataSize(2L << 30);

    /**
     * How long a fill lease lasts unless its holder renews it (it does every third of that while it fills): how
     * long the fleet waits for a crashed holder before another instance takes its fill over.
     */
    public static final java.time.Duration DEFAULT_FILL_LEASE_DURATION = java.time.Duration.ofSeconds(30);

    /**
     * How long a presigned archive URL is valid: a client follows the redirect at once, so minutes are plenty, and
     * a URL that leaks (a proxy's log, a CI log) opens one archive for no longer than that.
     */
    public static final java.time.Duration DEFAULT_REDIRECT_URL_TTL = java.time.Duration.ofMinutes(5);

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
        redirectArchives = redirectArchives != null && redirectArchives;
        redirectUrlTtl = redirectUrlTtl == null ? DEFAULT_REDIRECT_URL_TTL : redirectUrlTtl;
        // S3 refuses presigned URLs valid for longer than 7 days; below 10 s a client on a slow link may get an
        // expired one.
        if (redirectUrlTtl.compareTo(java.time.Duration.ofSeconds(10)) < 0
                || redirectUrlTtl.compareTo(java.time.Duration.ofDays(7)) > 0) {
            throw new IllegalArgumentException(
                    "redirectUrlTtl: " + redirectUrlTtl + " (expected: from 10s to 7d; S3 allows at most 7 days)");
        }
        if (redirectEndpoint != null
                && (redirectEndpoint.getHost() == null
                        || !("http".equals(redirectEndpoint.getScheme())
                                || "https".equals(redirectEndpoint.getScheme())))) {
            throw new IllegalArgumentException("redirectEndpoint: '" + redirectEndpoint
                    + "' (expected: an http or https URL clients reach the store at)");
        }
    }
}
