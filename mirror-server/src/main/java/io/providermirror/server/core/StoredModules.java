package io.providermirror.server.core;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobSummary;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.OriginException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;

/** The module versions whose archives the cache holds, found by their keys ({@link CacheLayout#moduleArchive}). */
final class StoredModules {

    private StoredModules() {}

    /** Every module version whose archive {@code blobs} holds and that has a pin. Blocking. */
    static List<StoredModule> list(
            BlobStore blobs, BiFunction<ModuleAddress, ProviderVersion, Optional<ModulePin>> pins) {
        List<StoredModule> stored = new ArrayList<>();
        for (BlobSummary blob : blobs.list()) {
            List<String> segments = blob.key().segments();
            if (segments.size() != 7 || !segments.get(0).equals(CacheLayout.MODULES)) {
                continue;
            }
            try {
                ModuleAddress address =
                        new ModuleAddress(segments.get(1), segments.get(2), segments.get(3), segments.get(4));
                Optional<ProviderVersion> version = ProviderVersion.parse(segments.get(5));
                if (version.isEmpty()) {
                    continue;
                }
                pins.apply(address, version.get())
                        .ifPresent(pin -> stored.add(new StoredModule(address, version.get(), pin, blob.size())));
            } catch (IllegalArgumentException | OriginException e) {
                // Not a module the mirror wrote; nothing to list.
            }
        }
        return List.copyOf(stored);
    }
}
