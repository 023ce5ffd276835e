package io.providermirror.server.face.modules;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.ModuleRegistryClient;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.ServiceDiscovery;
import java.net.URI;
import java.time.Duration;

/**
 * The module registries of origin hosts: each host's {@code modules.v1} base from its discovery document (kept
 * for the index TTL, so a module request does not cost a discovery request each time), and the two requests of the
 * module registry protocol beneath it. Blocking: call it on a pool.
 */
final class ModuleOrigins {

    private final ServiceDiscovery discovery;
    private final ModuleRegistryClient registry;
    private final Cache<String, URI> bases;

    ModuleOrigins(ServiceDiscovery discovery, ModuleRegistryClient registry, Duration ttl) {
        this.discovery = discovery;
        this.registry = registry;
        this.bases =
                Caffeine.newBuilder().maximumSize(1_000).expireAfterWrite(ttl).build();
    }

    URI modulesBase(String hostname) {
        return bases.get(hostname, discovery::modulesBase);
    }

    ModuleRegistryClient.FetchedModuleVersions versions(ModuleAddress address) {
        try {
            return registry.versions(modulesBase(address.hostname()), address);
        } catch (OriginException e) {
            throw naming("the version list of module " + address, address, e);
        }
    }

    ModuleRegistryClient.ResolvedSource source(ModuleAddress address, ProviderVersion version) {
        try {
            return registry.resolve(modulesBase(address.hostname()), address, version);
        } catch (OriginException e) {
            throw naming("the download of module " + address + " " + version, address, e);
        }
    }

    /** {@code failure}, its message naming the module when it does not yet (a discovery failure, say). */
    private static OriginException naming(String what, ModuleAddress address, OriginException failure) {
        if (failure.getMessage() != null && failure.getMessage().contains(address.toString())) {
            return failure;
        }
        return new OriginException(failure.reason(), what + ": " + failure.getMessage(), failure.status());
    }
}
