package io.providermirror.cache;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Where archives live. A blob is written to a temporary object and becomes visible only by an atomic commit;
 * a blob whose content does not match what was committed is never returned, and a size bound is kept by
 * evicting the least recently used blobs that nobody is reading. This is the seam where a shared object
 * store can stand in for the local disk: reads are channels (ranges) or streams, and nothing here names a file.
 */
public interface BlobStore {

    /** The committed blob at {@code key}, if there is one whose content still has its committed size. */
    Optional<StoredBlob> find(CacheKey key) throws IOException;

    /**
     * As {@link #find}, asking only this instance's own storage, never a store shared with other instances: what a
     * write of this instance commits is found here at once. The store of a single instance has nothing else.
     */
    default Optional<StoredBlob> findLocal(CacheKey key) throws IOException {
        return find(key);
    }

    /**
     * Opens the committed blob at {@code key} for reading and pins it against eviction until the result is
     * closed. The first time a blob is opened after the store was opened, its content is hashed in full; a
     * blob whose content no longer matches its committed sha256 is removed and reported absent.
     */
    Optional<OpenBlob> open(CacheKey key) throws IOException;

    /**
     * As {@link #open}, for the hot path: only when the store already verified the blob since it was opened
     * and needs nothing but to open its content (no metadata read), so a caller may do it where blocking must be
     * brief. Empty means "ask {@link #open}", not "absent".
     */
    default Optional<OpenBlob> openVerified(CacheKey key) throws IOException {
        return Optional.empty();
    }

    /**
     * Whether this store hands out URLs from which clients read committed blobs themselves ({@link #redirect}); false
     * unless it was configured to.
     */
    default boolean redirects() {
        return false;
    }

    /**
     * A short-lived URL from which a client reads the committed blob at {@code key} straight from the store, when
     * {@link #redirects} and the store holds it; empty when it does not. Fails when the store cannot be asked.
     */
    default Optional<BlobRedirect> redirect(CacheKey key) throws IOException {
        return Optional.empty();
    }

    /** Starts writing a blob; nothing is visible at {@code key} until {@link BlobWrite#commit} succeeds. */
    BlobWrite create(CacheKey key) throws IOException;

    /** Removes the blob at {@code key}, if any. */
    void remove(CacheKey key) throws IOException;

    /**
     * Drops this instance's own copies of the blobs {@code which} selects (a local tier in front of a shared store),
     * leaving the store of record as it is: after another instance removed them there. A store without copies of its
     * own has nothing to drop.
     */
    default void dropLocalCopies(java.util.function.Predicate<CacheKey> which) throws IOException {}

    /** Total bytes of committed blobs. */
    long totalBytes();

    /** Number of committed blobs. */
    int count();

    /**
     * Bytes of committed blobs' content held in memory for the hot path (small archives, within a bound of the
     * heap); none for a store that holds nothing in memory.
     */
    default long heldBytes() {
        return 0;
    }

    /** Blobs evicted to keep the size bound since the store was opened. */
    long evictions();

    /** Every committed blob, from the store's index. */
    List<BlobSummary> list();
}
