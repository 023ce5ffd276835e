package io.providermirror.server.app;

import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.FileDocumentStore;
import io.providermirror.s3.S3Bucket;
import io.providermirror.s3.S3DocumentStore;
import io.providermirror.server.config.MirrorConfig;
import java.io.IOException;
import java.time.Clock;

/**
 * The documents of a cache, for a command that only reads what the running instances write to be shared (the
 * inventory's shards): without the cache directory's lock, so it works beside a running mirror; the bucket's
 * documents themselves with {@code cache.s3}, else the directory's.
 */
public final class SharedDocuments implements AutoCloseable {

    private final DocumentStore documents;
    private final S3Bucket bucket;

    private SharedDocuments(DocumentStore documents, S3Bucket bucket) {
        this.documents = documents;
        this.bucket = bucket;
    }

    /** The documents of the cache {@code config} names. */
    public static SharedDocuments open(MirrorConfig config, Clock clock) throws IOException {
        if (config.cache().s3() == null) {
            return new SharedDocuments(
                    new FileDocumentStore(
                            config.cache().directory().toAbsolutePath().normalize(), clock),
                    null);
        }
        S3Bucket bucket = BucketStores.bucketOnly(config.cache().s3());
        return new SharedDocuments(new S3DocumentStore(bucket, clock), bucket);
    }

    public DocumentStore documents() {
        return documents;
    }

    @Override
    public void close() {
        if (bucket != null) {
            bucket.close();
        }
    }
}
