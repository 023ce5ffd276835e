package io.providermirror.server.app;

import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.core.ConfiguredOrigins;
import io.providermirror.server.core.EngineServices;
import io.providermirror.server.core.FillBounds;
import io.providermirror.server.core.OriginFills;
import io.providermirror.server.core.PolicyHolds;
import io.providermirror.server.core.ProviderPolicy;
import io.providermirror.server.core.ReleaseAge;
import io.providermirror.server.face.mirror.NetworkMirrorFace;
import io.providermirror.server.face.providers.ProviderRegistryFace;
import io.providermirror.server.providers.ProviderMirror;
import java.time.Clock;

/**
 * Builds the provider path ({@link ProviderMirror}) and the two faces that answer from it, the network mirror and
 * providers.v1, from the configuration. Its archives are fetched through the {@link OriginFills} modules use.
 */
final class ProviderWiring {

    /**
     * The provider path and the two provider faces over it; {@code holds}, what the policy's rules hold back, which
     * the modules' rules record in too.
     */
    record Providers(
            ProviderMirror mirror, NetworkMirrorFace networkMirror, ProviderRegistryFace registry, PolicyHolds holds) {}

    private ProviderWiring() {}

    /** The provider path's tunables, with the bounds every fill from an origin shares. */
    static ProviderMirror.Settings settings(MirrorConfig config) {
        return new ProviderMirror.Settings(
                config.cache().indexTtl(),
                config.upstream().maxArchiveBytes(),
                config.upstream().offline(),
                config.server().metadataTimeout(),
                config.cache().metadataMemory() == null
                        ? Runtime.getRuntime().maxMemory() / 4
                        : config.cache().metadataMemory().bytes(),
                new FillBounds(
                        config.upstream().maxConcurrentFills(),
                        config.upstream().maxConcurrentFillsPerHost(),
                        config.upstream().archiveTimeout(),
                        config.upstream().minTransferRate().bytes(),
                        config.upstream().readTimeout()),
                config.cache().notFoundTtl());
    }

    /**
     * @param origins each host's origin, discovered once for every service
     * @param engine the cache the provider path keeps what it verified in, and what every path shares
     */
    static Providers create(
            MirrorConfig config,
            ProviderMirror.Settings settings,
            ConfiguredOrigins origins,
            EngineServices engine,
            MirrorAuth auth) {
        Clock clock = engine.clock();
        PolicyHolds holds = new PolicyHolds(clock);
        ProviderPolicy policy = new ProviderPolicy(config.policy(), holds);
        ProviderMirror mirror = new ProviderMirror(
                settings,
                engine,
                origins,
                policy,
                auth,
                new ReleaseAge(config.policy(), clock, engine.metrics(), engine.decisions(), holds));
        // The providers.v1 face's published releases take the last quarter of the metadata memory.
        ProviderRegistryFace registry =
                new ProviderRegistryFace(mirror, policy, engine, settings.metadataMemoryBytes() / 4);
        return new Providers(mirror, new NetworkMirrorFace(mirror, auth), registry, holds);
    }
}
