package io.providermirror.s3;

import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.StoredBlob;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;

/**
 * An archive being written for an {@link S3BlobStore}: the bytes go to a write of the local disk tier (so readers
 * follow it as it grows, on a file channel); the commit uploads them to the bucket ({@link S3Uploads}) and only
 * once the bucket holds them commits the local copy, so the archive is warm on this instance from the start.
 */
final class S3BlobWrite implements BlobWrite {

    /** What the store does once the bucket and the local tier hold the archive. */
    @FunctionalInterface
    interface Committed {
        void committed(StoredBlob blob);
    }

    private final CacheKey key;
    private final BlobWrite local;
    private final S3Uploads uploads;
    private final Committed committed;
    private long size;
    private boolean finished;

    S3BlobWrite(CacheKey key, BlobWrite local, S3Uploads uploads, Committed committed) {
        this.key = key;
        this.local = local;
        this.uploads = uploads;
        this.committed = committed;
    }

    @Override
    public void write(ByteBuffer bytes) throws IOException {
        int length = bytes.remaining();
        local.write(bytes);
        size += length;
    }

    @Override
    public SeekableByteChannel openReader() throws IOException {
        return local.openReader();
    }

    @Override
    public StoredBlob commit(String sha256) throws IOException {
        synchronized (this) {
            if (finished) {
                throw new IllegalStateException("blob " + key + " was already committed or aborted");
            }
            finished = true;
        }
        try {
            uploads.upload(key, local::openReader, size, sha256);
        } catch (IOException | RuntimeException e) {
            local.abort();
            throw e;
        }
        StoredBlob blob = local.commit(sha256);
        committed.committed(blob);
        return blob;
    }

    @Override
    public void abort() {
        synchronized (this) {
            if (finished) {
                return;
            }
            finished = true;
        }
        local.abort();
    }
}
