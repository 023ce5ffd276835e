package io.providermirror.cache;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One archive being fetched into the cache, which any number of readers follow while it is written: they
 * read the growing temporary object (never a copy in memory) up to {@link #readableBytes()}. The last byte is
 * held back until the archive is committed, so a reader's response can never complete with an archive that
 * then fails verification.
 */
public final class ArchiveFill {

    private static final Logger LOG = LoggerFactory.getLogger(ArchiveFill.class);

    private final CacheKey key;
    private final BlobWrite write;
    private final CompletableFuture<OptionalLong> started = new CompletableFuture<>();
    private final CompletableFuture<StoredBlob> completion = new CompletableFuture<>();
    private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile long written;
    private volatile Throwable failure;

    ArchiveFill(CacheKey key, BlobWrite write) {
        this.key = key;
        this.write = write;
    }

    public CacheKey key() {
        return key;
    }

    /** Completes with the announced length (if the origin announced one) when the origin starts sending. */
    public CompletableFuture<OptionalLong> started() {
        return started;
    }

    /** Completes with the committed blob, or exceptionally when the fill failed and nothing was cached. */
    public CompletableFuture<StoredBlob> completion() {
        return completion;
    }

    /** Why the fill failed, once it has. */
    public java.util.Optional<Throwable> failure() {
        return java.util.Optional.ofNullable(failure);
    }

    /** Bytes a reader may read now. */
    public long readableBytes() {
        long bytes = written;
        if (completion.isDone() && !completion.isCompletedExceptionally()) {
            return bytes;
        }
        return Math.max(0, bytes - 1);
    }

    /** Bytes written so far. */
    public long writtenBytes() {
        return written;
    }

    /**
     * Opens a channel to read the archive from; each reader reads with its own position. Its content is
     * complete once the writer has appended its last byte (the writer may hash it there before committing).
     */
    public SeekableByteChannel openReader() throws IOException {
        return write.openReader();
    }

    /** Calls {@code listener} whenever more bytes are readable or the fill ends; close the result to stop. */
    public AutoCloseable onProgress(Runnable listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** The writer announces that the origin started sending. */
    public void begin(OptionalLong announcedLength) {
        started.complete(announcedLength);
    }

    /** The writer appends bytes in order. */
    @SuppressWarnings("NonAtomicVolatileUpdate") // one writer thread appends; readers only read the count
    public void append(ByteBuffer bytes) throws IOException {
        int count = bytes.remaining();
        write.write(bytes);
        written += count;
        notifyListeners();
    }

    /**
     * The writer commits the verified archive. When that fails, nothing is cached and the writer {@link #fail fails}
     * the fill with the reason its readers are to be given (the cache's disk, not the origin).
     */
    public StoredBlob commit(String sha256) throws IOException {
        StoredBlob blob = write.commit(sha256);
        completion.complete(blob);
        notifyListeners();
        return blob;
    }

    /**
     * The writer gives up; nothing is cached and every reader is aborted. A fill already committed stays committed,
     * whatever fails after its commit: its archive is in the cache and every reader, one still joining it too, is
     * served it.
     */
    public void fail(Throwable cause) {
        if (completion.isDone() && !completion.isCompletedExceptionally()) {
            return;
        }
        if (failure == null) {
            failure = cause;
        }
        write.abort();
        started.completeExceptionally(cause);
        completion.completeExceptionally(cause);
        notifyListeners();
    }

    /**
     * Tells every reader's listener; one that throws (a reader whose event loop has shut down) is dropped and the
     * others are told, and the fill goes on: a reader's trouble never fails the fill, nor anything its writer does
     * after the commit (the archive's {@code h1:}, its transparency-log entry).
     */
    private void notifyListeners() {
        for (Runnable listener : listeners) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                listeners.remove(listener);
                LOG.debug("a reader of the fill of {} stopped following it: {}", key, e.toString());
            }
        }
    }
}
