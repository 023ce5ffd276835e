package io.providermirror.s3;

import java.net.URI;
import java.util.Optional;

/**
 * Where the cache of record lives: an S3-compatible bucket, an optional endpoint (absent for AWS), the region,
 * path-style access (MinIO and most S3-compatible servers) and a key prefix under which every object of this
 * mirror lives, so a bucket can be shared.
 */
public record S3Settings(Optional<URI> endpoint, String bucket, String region, boolean pathStyleAccess, String prefix) {

    public S3Settings {
        if (bucket == null || bucket.isBlank()) {
            throw new IllegalArgumentException("bucket: empty");
        }
        prefix = prefix == null ? "" : prefix;
        if (!prefix.isEmpty() && !prefix.endsWith("/")) {
            prefix = prefix + "/";
        }
        if (prefix.startsWith("/")) {
            throw new IllegalArgumentException(
                    "prefix: '" + prefix + "' starts with '/' (expected: a relative key prefix)");
        }
    }
}
