package io.providermirror.cache;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Persistent metadata documents (discovery results, version lists, release evidence, package hashes), so a
 * restarted mirror serves what it had without its origins. Writes are atomic: a reader sees the old
 * document or the new one, never a mix. Every operation a store cannot do, or cannot do now, fails with an
 * {@link IOException}, as a failure of the store does: a caller handles one kind of failure, whichever the store.
 */
public interface DocumentStore {

    /** The document at {@code key}, if one was stored. */
    Optional<StoredDocument> read(CacheKey key) throws IOException;

    /** Stores (replacing) the document at {@code key}. */
    StoredDocument write(CacheKey key, byte[] content) throws IOException;

    /**
     * Removes the document at {@code key}; nothing to do when there is none. What a purge does. A store that only
     * reads (a bundle) throws an {@link IOException}.
     */
    default void delete(CacheKey key) throws IOException {
        throw new IOException("this document store does not remove documents (" + key + ")");
    }

    /**
     * The keys of the documents directly beneath {@code folder} (not those in folders below it), in no particular
     * order; none when the folder holds none or does not exist. A store that cannot list throws an
     * {@link IOException}.
     */
    default List<CacheKey> list(CacheKey folder) throws IOException {
        throw new IOException(getClass().getSimpleName() + " cannot list its documents (" + folder + ")");
    }
}
