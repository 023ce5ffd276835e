package io.providermirror.server.scenario;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.StoredBlob;
import io.providermirror.testkit.ForwardingBlobStore;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A store whose fills can be read only once they have ended (committed, or given up by the fill): the request that
 * started a fill meets its outcome before its answer begins. With a commit failure, every commit fails with it, as a
 * disk that fails while flushing.
 */
final class FillsEndBeforeRead extends ForwardingBlobStore {

    private final String commitFailure;

    FillsEndBeforeRead(BlobStore delegate) {
        this(delegate, null);
    }

    FillsEndBeforeRead(BlobStore delegate, String commitFailure) {
        super(delegate);
        this.commitFailure = commitFailure;
    }

    @Override
    public BlobWrite create(CacheKey key) throws IOException {
        CountDownLatch ended = new CountDownLatch(1);
        return new ForwardingWrite(super.create(key)) {
            @Override
            public SeekableByteChannel openReader() throws IOException {
                try {
                    if (!ended.await(20, TimeUnit.SECONDS)) {
                        throw new IOException("the fill did not end");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                }
                return super.openReader();
            }

            @Override
            public StoredBlob commit(String sha256) throws IOException {
                if (commitFailure != null) {
                    // The fill gives the write up next (abort), its failure recorded by then.
                    throw new IOException(commitFailure);
                }
                try {
                    return super.commit(sha256);
                } finally {
                    ended.countDown();
                }
            }

            @Override
            public void abort() {
                super.abort();
                ended.countDown();
            }
        };
    }
}
