package io.providermirror.server.purge;

import io.providermirror.cache.CacheKey;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.server.inventory.UsageItem;
import java.util.List;
import java.util.Optional;

/**
 * Which inventory item a cached archive is: a provider archive ({@link CacheLayout#archive}) is its version and
 * platform, a module archive ({@link CacheLayout#moduleArchive}) its version without build metadata (as its pin is
 * kept). Anything else in the archive store is no item.
 */
final class ArchiveItems {

    private ArchiveItems() {}

    /** The item the archive at {@code key} is, if it is one. */
    static Optional<UsageItem> of(CacheKey key) {
        try {
            List<String> segments = key.segments();
            if (segments.size() == 7 && segments.get(0).equals(CacheLayout.MODULES)) {
                ModuleAddress address =
                        new ModuleAddress(segments.get(1), segments.get(2), segments.get(3), segments.get(4));
                Optional<ProviderVersion> version = ProviderVersion.parse(segments.get(5));
                return version.filter(v -> segments.get(6).startsWith("module.")
                                && CacheLayout.modulePin(address, v)
                                        .segments()
                                        .subList(0, 6)
                                        .equals(segments.subList(0, 6)))
                        .map(v -> UsageItem.module(address, v));
            }
            if (segments.size() == 5 && segments.get(4).endsWith(".zip")) {
                ProviderAddress address = new ProviderAddress(segments.get(0), segments.get(1), segments.get(2));
                Optional<ProviderVersion> version = ProviderVersion.parse(segments.get(3));
                String file = segments.get(4).substring(0, segments.get(4).length() - ".zip".length());
                int arch = file.lastIndexOf('_');
                int os = arch < 0 ? -1 : file.lastIndexOf('_', arch - 1);
                if (version.isEmpty() || os < 0) {
                    return Optional.empty();
                }
                Platform platform = Platform.parse(file.substring(os + 1));
                return CacheLayout.archive(address, version.get(), platform).equals(key)
                        ? Optional.of(UsageItem.provider(address, version.get(), platform))
                        : Optional.empty();
            }
        } catch (IllegalArgumentException notAnItem) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    /** {@code item} as {@link #of} names it: a module version without its build metadata. */
    static UsageItem normalized(UsageItem item) {
        return item.kind() == UsageItem.Kind.MODULE
                ? new UsageItem(item.kind(), item.address(), item.version().withoutBuildMetadata(), "")
                : item;
    }
}
