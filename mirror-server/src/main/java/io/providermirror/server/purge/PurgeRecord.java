package io.providermirror.server.purge;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.StoredDocument;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.upstream.OriginJson;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The recent purges, kept in the cache's own document store ({@link CacheLayout#purges}) so that every instance
 * sharing a bucket learns of a purge another made and drops what it holds of it ({@link PurgeFollower}). The last
 * {@link #KEPT} purges are kept. Two instances purging at the same moment may each write the document over the
 * other's; the one that lost its entry has still removed everything from the bucket.
 */
final class PurgeRecord {

    /** How many purges the record keeps. */
    static final int KEPT = 1_000;

    /**
     * One purge: of {@code provider} (its {@code version}, else all; only {@code platforms} when some), or of
     * {@code module} {@code version}; made by {@code instance}.
     */
    record Entry(
            String id,
            String instance,
            String at,
            String provider,
            String module,
            String version,
            List<String> platforms) {
        Entry {
            platforms = platforms == null ? List.of() : List.copyOf(platforms);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final DocumentStore documents;

    PurgeRecord(DocumentStore documents) {
        this.documents = documents;
    }

    /** Every purge recorded, oldest first. */
    synchronized List<Entry> entries() throws IOException {
        Optional<StoredDocument> stored = documents.read(CacheLayout.purges());
        if (stored.isEmpty()) {
            return List.of();
        }
        try {
            return OriginJson.readValue(stored.get().content(), new TypeReference<List<Entry>>() {});
        } catch (IOException | RuntimeException e) {
            throw new IOException(
                    "the record of recent purges " + CacheLayout.purges() + " is unreadable: " + e.getMessage(), e);
        }
    }

    /** Adds {@code added}, dropping the oldest beyond {@link #KEPT}. */
    synchronized void append(List<Entry> added) throws IOException {
        List<Entry> entries;
        try {
            entries = new ArrayList<>(entries());
        } catch (IOException unreadable) {
            entries = new ArrayList<>();
        }
        entries.addAll(added);
        while (entries.size() > KEPT) {
            entries.remove(0);
        }
        documents.write(CacheLayout.purges(), JSON.writeValueAsBytes(entries));
    }
}
