package io.providermirror.server.providers;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.FillLeases;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.core.OriginFills;
import io.providermirror.server.core.OriginRules;
import io.providermirror.server.core.Origins;
import io.providermirror.server.core.ProviderPolicy;
import io.providermirror.server.core.RememberedFailures;
import io.providermirror.server.face.mirror.NetworkMirrorFace;
import io.providermirror.server.metrics.MirrorMetrics;
import java.time.Clock;
import java.util.concurrent.Executor;

/**
 * Builds what the provider path's tests ask through: a {@link ProviderMirror} with its own fills, as the wiring
 * builds one with the fills modules share, and the network mirror face over it.
 */
final class ProviderMirrors {

    private ProviderMirrors() {}

    /**
     * A provider path with the open policy and no access control, fetching archives on {@code executor} through fills
     * of its own; {@code leases} decide which instance sharing the store fetches a cold archive; its decisions go to
     * {@code decisions}.
     */
    static ProviderMirror open(
            ProviderMirror.Settings settings,
            Origins origins,
            BlobStore blobs,
            DocumentStore documents,
            FillLeases leases,
            Executor executor,
            Clock clock,
            MirrorMetrics metrics,
            OriginRules rules,
            io.providermirror.server.tlog.DecisionLog decisions) {
        OriginFills fills = new OriginFills(
                settings.fillBounds(),
                settings.maxArchiveBytes(),
                blobs,
                leases,
                executor,
                executor,
                metrics,
                RememberedFailures.NONE);
        return new ProviderMirror(
                settings,
                new io.providermirror.server.core.EngineServices(
                        blobs,
                        documents,
                        fills,
                        rules,
                        executor,
                        new io.providermirror.upstream.HostLanes(
                                executor, Math.max(16, settings.fillBounds().maxConcurrent()), 1000),
                        clock,
                        metrics,
                        decisions),
                origins,
                ProviderPolicy.OPEN,
                MirrorAuth.OPEN,
                new io.providermirror.server.core.ReleaseAge(
                        new io.providermirror.server.config.PolicyConfig(null, null, null, null),
                        clock,
                        metrics,
                        io.providermirror.server.tlog.DecisionLog.NONE));
    }

    /** {@code index.json} and {@code <version>.json} of {@code mirror}, with bare archive URLs. */
    static NetworkMirrorFace networkMirror(ProviderMirror mirror) {
        return new NetworkMirrorFace(mirror, MirrorAuth.OPEN);
    }
}
