package io.providermirror.server.core;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.DocumentStore;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.tlog.DecisionLog;
import io.providermirror.upstream.HostLanes;
import java.time.Clock;
import java.util.concurrent.Executor;

/**
 * What every path through the engine works with, made once by the wiring: the cache's archive and document stores,
 * the one fill of anything from an origin ({@link OriginFills}), the rules every origin request obeys, the executor
 * for blocking work of bounded length (disk, metadata requests to origins) and each origin host's lane on it (where
 * requests to that origin run, so one that hangs holds no more than its share of the executor's threads), the
 * mirror's clock, its meters and the transparency log's decisions.
 */
public record EngineServices(
        BlobStore blobs,
        DocumentStore documents,
        OriginFills fills,
        OriginRules rules,
        Executor executor,
        HostLanes lanes,
        Clock clock,
        MirrorMetrics metrics,
        DecisionLog decisions) {}
