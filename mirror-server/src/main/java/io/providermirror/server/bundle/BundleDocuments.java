package io.providermirror.server.bundle;

import io.providermirror.cache.CacheKey;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.StoredDocument;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A bundle's documents (version lists, release evidence) in memory, at their cache paths: a bundle carries the
 * cache's own documents, so {@link io.providermirror.server.core.CacheDocuments} reads and writes them here too
 * and their formats keep one owner.
 */
final class BundleDocuments implements DocumentStore {

    /** A bundle's documents carry no time of their own; what reads them here never asks for one. */
    private static final Instant UNDATED = Instant.EPOCH;

    private final Map<CacheKey, byte[]> documents = new LinkedHashMap<>();

    @Override
    public Optional<StoredDocument> read(CacheKey key) {
        return Optional.ofNullable(documents.get(key)).map(content -> new StoredDocument(content, UNDATED));
    }

    @Override
    public StoredDocument write(CacheKey key, byte[] content) {
        documents.put(key, content);
        return new StoredDocument(content, UNDATED);
    }

    /** The bytes of the document at {@code key}, which must have been written. */
    byte[] bytes(CacheKey key) {
        return documents.get(key);
    }
}
