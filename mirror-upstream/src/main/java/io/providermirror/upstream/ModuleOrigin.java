package io.providermirror.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import java.util.Map;

/**
 * Where one origin host's registry modules come from, as {@link Origin} is for its providers: the module core asks a
 * {@code ModuleOrigin} and builds no URL itself; the implementation owns the host's discovery, its {@code modules.v1}
 * base URL and which requests carry the host's token. Blocking: call it on a pool. Failures are
 * {@link OriginException}s whose message names the module.
 */
public interface ModuleOrigin {

    /** The module's version list, with the bytes to persist (the registry's form). */
    ModuleRegistryClient.FetchedModuleVersions versions(ModuleAddress address);

    /** The source of {@code version} as the origin wrote it and as the mirror reads it. */
    ModuleRegistryClient.ResolvedSource source(ModuleAddress address, ProviderVersion version);

    /**
     * Opens the archive at {@code source} (an https archive the origin named for {@code version}), through the
     * origin's destination checks; the host's token goes with it only where the registry itself serves it.
     */
    OriginHttpClient.ArchiveStream openArchive(ModuleAddress address, ProviderVersion version, ModuleSource source);

    /**
     * {@code GET <modules.v1><path>?<query>} of the full module registry API beside the protocol (lists, search,
     * latest, details): a JSON object read as the CLI reads documents, the host's token only to the registry itself.
     *
     * @param path  relative to the host's {@code modules.v1} base, segments the mirror validated
     * @param query parameters in the order they are sent
     * @param what  how to name the request in errors
     */
    JsonNode api(String path, Map<String, String> query, String what);
}
