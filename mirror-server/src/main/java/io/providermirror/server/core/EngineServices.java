package io.providermirror.server.core;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.DocumentStore;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.tlog.DecisionLog;
import java.time.Clock;
import java.util.concurrent.Executor;

/**
 * What every path through the engine works with, made once by the wiring: the cache's archive and document stores,
 * the one fill of anything from an origin ({@link OriginFills}), the rules every origin request obeys, the executor
 * for blocking work of bounded length (disk, metadata requests to origins), the mirror's clock, its meters and the
 * transparency log's decisions.
 */
public record EngineServices(
        BlobStore blobs,
        DocumentStore documents,
        OriginFills fills,
        OriginRules rules,
        Executor executor,
        Clock clock,
        MirrorMetrics metrics,
        DecisionLog decisions) {}
