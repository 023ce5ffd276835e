package io.providermirror.server.app;

import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.RemoteStoreListener;
import io.providermirror.s3.S3Bucket;
import io.providermirror.s3.S3DocumentStore;
import io.providermirror.s3.S3Settings;
import io.providermirror.server.config.S3Config;
import java.time.Clock;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;

/**
 * The documents of a bucket cache ({@code cache.s3}) alone, for a command that only reads them beside running
 * instances ({@code log verify}, {@code log export}): no local tier, no local copies, no lock, nothing written.
 * Credentials come from the AWS SDK's default chain, as the server's.
 */
public final class BucketDocuments implements AutoCloseable {

    private final S3Bucket bucket;
    private final DocumentStore documents;

    private BucketDocuments(S3Bucket bucket, Clock clock) {
        this.bucket = bucket;
        this.documents = new S3DocumentStore(bucket, clock);
    }

    /** The documents of the bucket {@code config} names. */
    public static BucketDocuments open(S3Config config, Clock clock) {
        S3Settings settings = BucketStores.settings(config);
        return new BucketDocuments(
                new S3Bucket(
                        S3Bucket.client(
                                settings, DefaultCredentialsProvider.builder().build()),
                        settings,
                        RemoteStoreListener.NONE),
                clock);
    }

    /** The bucket's documents, read through the same store the server reads them with. */
    public DocumentStore documents() {
        return documents;
    }

    @Override
    public void close() {
        bucket.close();
    }
}
