package io.providermirror.server.core;

import io.providermirror.upstream.ModuleRegistryClient;
import io.providermirror.upstream.Origin;
import io.providermirror.upstream.ParentMirrorClient;
import io.providermirror.upstream.ParentMirrorOrigin;
import io.providermirror.upstream.RegistryClient;
import io.providermirror.upstream.RegistryModuleOrigin;
import io.providermirror.upstream.RegistryOrigin;
import io.providermirror.upstream.ServiceBases;
import io.providermirror.upstream.ServiceDiscovery;
import java.time.Duration;

/**
 * The origins as the operator configured them: the parent network mirror of a host with {@code mirrorUrl},
 * else the host's own registry, found by service discovery (remembered in the cache as {@code discovery.json}).
 * Modules always come from the host's own module registry, found by the same discovery: one discovery document per
 * host for all its services.
 */
public final class ConfiguredOrigins implements Origins {

    private final OriginRules rules;
    private final RegistryClient registry;
    private final ParentMirrorClient parents;
    private final ModuleRegistryClient modules;
    private final ServiceBases bases;

    /**
     * @param indexTtl how long a discovered registry URL is used before discovery is asked again, as long as a
     *                 version list is fresh (at least a second, so a zero TTL does not discover on every request)
     */
    public ConfiguredOrigins(
            OriginRules rules,
            ServiceDiscovery discovery,
            RegistryClient registry,
            ParentMirrorClient parents,
            ModuleRegistryClient modules,
            CacheDocuments documents,
            Duration indexTtl) {
        this.rules = rules;
        this.registry = registry;
        this.parents = parents;
        this.modules = modules;
        this.bases = new ServiceBases(
                discovery, new DiscoveryDocuments(documents), indexTtl.isZero() ? Duration.ofSeconds(1) : indexTtl);
    }

    @Override
    public Origin of(String hostname) {
        return rules.parentMirror(hostname)
                .<Origin>map(mirror -> new ParentMirrorOrigin(mirror, parents))
                .orElseGet(() -> new RegistryOrigin(hostname, registry, bases));
    }

    /**
     * Discovers {@code hostname} now, unless its base URLs are known and fresh, and keeps them as any request's
     * discovery would: the next request for one of its providers or modules finds them known.
     *
     * @throws io.providermirror.upstream.OriginException when its discovery fails, or names no {@code service}
     */
    public void discover(String hostname, io.providermirror.upstream.RegistryService service) {
        bases.base(hostname, service);
    }

    /** The module origins: each host's module registry, discovered together with its provider registry. */
    public ModuleOrigins modules() {
        return hostname -> new RegistryModuleOrigin(hostname, modules, bases);
    }
}
