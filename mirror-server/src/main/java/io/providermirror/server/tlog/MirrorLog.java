package io.providermirror.server.tlog;

import io.providermirror.cache.DocumentStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The mirror's transparency log as the server and the commands use it: the key (made at the first start), the log
 * it signs over the cache's documents, and the {@link DecisionLog} that appends to it in the background.
 */
public final class MirrorLog implements AutoCloseable {

    private final TransparencyLog log;
    private final AsyncDecisionLog decisions;

    private MirrorLog(TransparencyLog log, AsyncDecisionLog decisions) {
        this.log = log;
        this.decisions = decisions;
    }

    /**
     * Opens (or starts) the log of the cache in {@code cacheDirectory}, whose key is kept beside it
     * ({@link LogKeyFile}), over {@code documents}; a new key is named after the first of {@code publicUrls}, else
     * this machine.
     */
    public static MirrorLog open(
            Path cacheDirectory, java.util.List<java.net.URI> publicUrls, DocumentStore documents, Clock clock)
            throws IOException {
        LogKey key = LogKeyFile.loadOrCreate(LogKeyFile.directoryBeside(cacheDirectory), LogKeyFile.host(publicUrls));
        TransparencyLog log = TransparencyLog.open(new LogStorage(documents, key.keyIdHex()), key);
        return new MirrorLog(log, new AsyncDecisionLog(log, clock));
    }

    /** Where decisions are recorded. */
    public AsyncDecisionLog decisions() {
        return decisions;
    }

    /** The log, for serving it. */
    public TransparencyLog log() {
        return log;
    }

    /** The verifier key clients check checkpoints with. */
    public String verifierKey() {
        return log.key().verifierKey();
    }

    @Override
    public void close() {
        decisions.close();
    }
}
