package io.providermirror.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import java.net.URI;
import java.util.Map;

/**
 * A host's own module registry: its {@code modules.v1} base URL from {@link ServiceBases} (the same discovery as its
 * provider registry's), and the module registry protocol through {@link ModuleRegistryClient}.
 */
public final class RegistryModuleOrigin implements ModuleOrigin {

    private final String hostname;
    private final ModuleRegistryClient registry;
    private final ServiceBases bases;

    public RegistryModuleOrigin(String hostname, ModuleRegistryClient registry, ServiceBases bases) {
        this.hostname = hostname;
        this.registry = registry;
        this.bases = bases;
    }

    @Override
    public JsonNode api(String path, Map<String, String> query, String what) {
        return registry.api().get(modulesBase(), hostname, path, query, what);
    }

    @Override
    public ModuleRegistryClient.FetchedModuleVersions versions(ModuleAddress address) {
        try {
            return registry.versions(modulesBase(), address);
        } catch (OriginException e) {
            throw naming("the version list of module " + address, address, e);
        }
    }

    @Override
    public ModuleRegistryClient.ResolvedSource source(ModuleAddress address, ProviderVersion version) {
        try {
            return registry.resolve(modulesBase(), address, version);
        } catch (OriginException e) {
            throw naming("the download of module " + address + " " + version, address, e);
        }
    }

    @Override
    public OriginHttpClient.ArchiveStream openArchive(
            ModuleAddress address, ProviderVersion version, ModuleSource source) {
        return registry.openArchive(modulesBase(), address, version, source);
    }

    private URI modulesBase() {
        return bases.base(hostname, RegistryService.MODULES);
    }

    /** {@code failure}, its message naming the module when it does not yet (a discovery failure, say). */
    private static OriginException naming(String what, ModuleAddress address, OriginException failure) {
        if (failure.getMessage() != null && failure.getMessage().contains(address.toString())) {
            return failure;
        }
        return new OriginException(failure.reason(), what + ": " + failure.getMessage(), failure.status());
    }
}
