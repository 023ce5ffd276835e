package io.providermirror.testkit;

import io.providermirror.cache.BlobRedirect;
import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobSummary;
import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.OpenBlob;
import io.providermirror.cache.StoredBlob;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.util.List;
import java.util.Optional;

/**
 * A store that hands everything to another: tests that inject a fault (a full disk, a late reader) override
 * only the calls they change. Its writes are {@link ForwardingWrite}s, likewise.
 */
public class ForwardingBlobStore implements BlobStore {

    private final BlobStore delegate;

    /** A store that hands every call to {@code delegate}. */
    public ForwardingBlobStore(BlobStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public Optional<StoredBlob> find(CacheKey key) throws IOException {
        return delegate.find(key);
    }

    @Override
    public Optional<StoredBlob> findLocal(CacheKey key) throws IOException {
        return delegate.findLocal(key);
    }

    @Override
    public Optional<OpenBlob> open(CacheKey key) throws IOException {
        return delegate.open(key);
    }

    @Override
    public Optional<OpenBlob> openVerified(CacheKey key) throws IOException {
        return delegate.openVerified(key);
    }

    @Override
    public boolean redirects() {
        return delegate.redirects();
    }

    @Override
    public Optional<BlobRedirect> redirect(CacheKey key) throws IOException {
        return delegate.redirect(key);
    }

    @Override
    public void remove(CacheKey key) throws IOException {
        delegate.remove(key);
    }

    @Override
    public long totalBytes() {
        return delegate.totalBytes();
    }

    @Override
    public int count() {
        return delegate.count();
    }

    @Override
    public long evictions() {
        return delegate.evictions();
    }

    @Override
    public long heldBytes() {
        return delegate.heldBytes();
    }

    @Override
    public List<BlobSummary> list() {
        return delegate.list();
    }

    @Override
    public BlobWrite create(CacheKey key) throws IOException {
        return delegate.create(key);
    }

    /** A write that hands everything to another. */
    public static class ForwardingWrite implements BlobWrite {

        private final BlobWrite delegate;

        /** A write that hands every call to {@code delegate}. */
        public ForwardingWrite(BlobWrite delegate) {
            this.delegate = delegate;
        }

        @Override
        public void write(ByteBuffer bytes) throws IOException {
            delegate.write(bytes);
        }

        @Override
        public SeekableByteChannel openReader() throws IOException {
            return delegate.openReader();
        }

        @Override
        public StoredBlob commit(String sha256) throws IOException {
            return delegate.commit(sha256);
        }

        @Override
        public void abort() {
            delegate.abort();
        }
    }

    @Override
    public void dropLocalCopies(java.util.function.Predicate<CacheKey> which) throws IOException {
        delegate.dropLocalCopies(which);
    }
}
