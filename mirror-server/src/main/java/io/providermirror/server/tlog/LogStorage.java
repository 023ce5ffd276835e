package io.providermirror.server.tlog;

import io.providermirror.cache.CacheKey;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.StoredDocument;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * A log's resources as documents of the cache's {@link DocumentStore}, beneath {@code log/<key ID>/}: the same
 * paths as served ({@code checkpoint}, {@code tile/...}), each written atomically and durably as every cache
 * document is. On a bucket they are objects of the bucket, so the log outlives the instance's disk.
 */
public final class LogStorage implements LogSource {

    private final DocumentStore documents;
    private final List<String> prefix;

    /** The storage of the log whose key has ID {@code keyIdHex}. */
    public LogStorage(DocumentStore documents, String keyIdHex) {
        this.documents = documents;
        this.prefix = List.of("log", keyIdHex);
    }

    @Override
    public Optional<byte[]> checkpoint() throws IOException {
        return documents.read(checkpointKey()).map(StoredDocument::content);
    }

    @Override
    public Optional<byte[]> tile(TileName name) throws IOException {
        return documents.read(name.key(prefix)).map(StoredDocument::content);
    }

    void writeTile(TileName name, byte[] content) throws IOException {
        documents.write(name.key(prefix), content);
    }

    void writeCheckpoint(byte[] note) throws IOException {
        documents.write(checkpointKey(), note);
    }

    private CacheKey checkpointKey() {
        return new CacheKey(List.of(prefix.get(0), prefix.get(1), "checkpoint"));
    }
}
