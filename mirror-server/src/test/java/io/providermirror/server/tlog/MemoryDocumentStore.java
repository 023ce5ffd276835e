package io.providermirror.server.tlog;

import io.providermirror.cache.CacheKey;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.StoredDocument;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Documents in memory, which a test may change behind the log's back. */
final class MemoryDocumentStore implements DocumentStore {

    final Map<String, byte[]> documents = new ConcurrentHashMap<>();
    /** When set, writes fail. */
    volatile boolean failing;
    /** When set, writes of checkpoints fail (after the tiles of their batch were written). */
    volatile boolean failingCheckpoints;

    @Override
    public Optional<StoredDocument> read(CacheKey key) {
        byte[] content = documents.get(key.toString());
        return content == null ? Optional.empty() : Optional.of(new StoredDocument(content.clone(), Instant.EPOCH));
    }

    @Override
    public StoredDocument write(CacheKey key, byte[] content) throws java.io.IOException {
        if (failing || failingCheckpoints && key.toString().endsWith("/checkpoint")) {
            throw new java.io.IOException("the store is failing");
        }
        documents.put(key.toString(), content.clone());
        return new StoredDocument(content.clone(), Instant.EPOCH);
    }
}
