package io.providermirror.server.app;

import io.providermirror.cache.FileBlobStore;
import io.providermirror.cache.FileDocumentStore;
import io.providermirror.cache.RemoteStoreListener;
import io.providermirror.cache.StoreUnavailableException;
import io.providermirror.s3.LocalCopyDocumentStore;
import io.providermirror.s3.S3BlobStore;
import io.providermirror.s3.S3Bucket;
import io.providermirror.s3.S3DocumentStore;
import io.providermirror.s3.S3Redirects;
import io.providermirror.s3.S3Settings;
import io.providermirror.server.config.S3Config;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The stores of a mirror whose cache of record is a bucket ({@code cache.s3}): checks at start-up that the bucket
 * answers (an error names the key: {@code cache.s3.bucket} when it does not exist or access is denied,
 * {@code cache.s3.endpoint} when nothing answers), then opens the archive store with its local tier beneath the
 * cache directory (and, with {@code cache.s3.redirectArchives}, its presigner) and the document store with its
 * local copies there. Credentials come from the AWS SDK's default chain.
 */
record BucketStores(
        S3Bucket bucket,
        FileBlobStore tier,
        S3BlobStore blobs,
        LocalCopyDocumentStore documents,
        Optional<S3Redirects> redirects)
        implements AutoCloseable {

    /** Archives up to this size are one PUT; larger ones are multipart uploads of parts of this size. */
    static final int PART_BYTES = 16 * 1024 * 1024;

    static BucketStores open(
            S3Config config,
            Path cacheDirectory,
            long maxBytes,
            long minFreeBytes,
            Clock clock,
            RemoteStoreListener listener)
            throws IOException {
        S3Settings settings = settings(config);
        AwsCredentialsProvider credentials =
                DefaultCredentialsProvider.builder().build();
        S3Bucket bucket = new S3Bucket(S3Bucket.client(settings, credentials), settings, listener);
        Optional<S3Redirects> redirects = Optional.empty();
        try {
            check(bucket, config);
            FileBlobStore tier = new FileBlobStore(
                    cacheDirectory, clock, config.localTierSize().bytes(), minFreeBytes);
            if (config.redirectArchives()) {
                redirects = Optional.of(S3Redirects.create(
                        settings,
                        Optional.ofNullable(config.redirectEndpoint()),
                        credentials,
                        config.redirectUrlTtl()));
            }
            S3BlobStore blobs = new S3BlobStore(bucket, tier, maxBytes, PART_BYTES, clock, redirects);
            LocalCopyDocumentStore documents = new LocalCopyDocumentStore(
                    new S3DocumentStore(bucket, clock), new FileDocumentStore(cacheDirectory, clock), listener);
            return new BucketStores(bucket, tier, blobs, documents, redirects);
        } catch (IOException | RuntimeException e) {
            redirects.ifPresent(S3Redirects::close);
            bucket.close();
            throw e;
        }
    }

    /** The bucket's settings as {@code cache.s3} gives them. */
    static S3Settings settings(S3Config config) {
        return new S3Settings(
                Optional.ofNullable(config.endpoint()),
                config.bucket(),
                config.region(),
                config.pathStyleAccess(),
                config.prefix());
    }

    /**
     * The bucket alone, checked to answer, for a command that only reads its documents beside running instances: no
     * local tier, no local copies, nothing in the cache directory.
     */
    static S3Bucket bucketOnly(S3Config config) throws IOException {
        S3Settings settings = settings(config);
        S3Bucket bucket = new S3Bucket(
                S3Bucket.client(settings, DefaultCredentialsProvider.builder().build()),
                settings,
                RemoteStoreListener.NONE);
        try {
            check(bucket, config);
        } catch (IOException | RuntimeException e) {
            bucket.close();
            throw e;
        }
        return bucket;
    }

    /** {@code --verify-cache}: every archive in the bucket read and checked against its recorded size and sha256. */
    FileBlobStore.VerificationReport verifyBucket() throws IOException {
        return blobs.verifyAll();
    }

    @Override
    public void close() {
        redirects.ifPresent(S3Redirects::close);
        bucket.close();
    }

    /**
     * A name for this instance among those sharing the bucket, {@code <hostname>-<pid>-<random>}, so that what it
     * writes (its fill leases, its inventory shard) names the instance (the pod, in Kubernetes) it comes from.
     */
    static String instanceName() {
        String host = System.getenv().getOrDefault("HOSTNAME", "mirror").replaceAll("[^A-Za-z0-9._-]", "_");
        return host + "-" + ProcessHandle.current().pid() + "-"
                + java.util.UUID.randomUUID().toString().substring(0, 8);
    }

    /** The fill leases of this instance in the bucket, held as {@code holder}; probes conditional writes first. */
    io.providermirror.cache.FillLeases fillLeases(java.time.Duration duration, Clock clock, String holder)
            throws IOException {
        return io.providermirror.cache.ConditionalFillLeases.open(
                new io.providermirror.s3.S3LeaseObjects(bucket), holder, duration, clock);
    }

    /** Whether the bucket answers now, for readiness: "reachable", or why not. */
    String probe() {
        try {
            bucket.call("head", "(bucket)", () -> bucket.client().headBucket(b -> b.bucket(bucket.name())));
            return "reachable";
        } catch (StoreUnavailableException e) {
            return "unreachable: " + e.getMessage();
        }
    }

    private static void check(S3Bucket bucket, S3Config config) throws IOException {
        try {
            bucket.client().headBucket(b -> b.bucket(bucket.name()));
        } catch (S3Exception e) {
            String where = config.endpoint() == null
                    ? "AWS region " + config.region()
                    : config.endpoint().toString();
            if (e.statusCode() == 404) {
                throw new IOException(
                        "cache.s3.bucket: the bucket '" + config.bucket() + "' does not exist at " + where, e);
            }
            if (e.statusCode() == 403 || e.statusCode() == 401) {
                throw new IOException(
                        "cache.s3.bucket: access denied to the bucket '" + config.bucket() + "' at "
                                + where + " (credentials come from the AWS SDK's default chain: AWS_ACCESS_KEY_ID and "
                                + "AWS_SECRET_ACCESS_KEY, a profile, or web identity)",
                        e);
            }
            throw new IOException(
                    "cache.s3.bucket: the bucket '" + config.bucket() + "' at " + where + " answered HTTP "
                            + e.statusCode(),
                    e);
        } catch (SdkException e) {
            throw new IOException(
                    "cache.s3.endpoint: cannot reach "
                            + (config.endpoint() == null ? "S3 in " + config.region() : config.endpoint()) + ": "
                            + e.getMessage(),
                    e);
        }
    }
}
