package io.providermirror.server.core;

import io.providermirror.cache.CacheKey;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;

/**
 * Where each thing lives in the cache, in one place: {@code <hostname>/<namespace>/<type>/...} for both
 * metadata documents and archives, so a reader of the cache directory finds a provider where its address says.
 */
public final class CacheLayout {

    private CacheLayout() {}

    /** The mirror's file name of an archive, as the version document's {@code url} gives it. */
    public static String archiveFileName(ProviderAddress address, ProviderVersion version, Platform platform) {
        return "terraform-provider-" + address.type() + "_" + version + "_" + platform + ".zip";
    }

    public static CacheKey discovery(String hostname) {
        return CacheKey.of(hostname, "discovery.json");
    }

    public static CacheKey versions(ProviderAddress address) {
        return CacheKey.of(address.hostname(), address.namespace(), address.type(), "versions.json");
    }

    public static CacheKey release(ProviderAddress address, ProviderVersion version) {
        return CacheKey.of(
                address.hostname(), address.namespace(), address.type(), version.canonical(), "release.json");
    }

    public static CacheKey packageHashes(ProviderAddress address, ProviderVersion version) {
        return CacheKey.of(address.hostname(), address.namespace(), address.type(), version.canonical(), "hashes.json");
    }

    public static CacheKey archive(ProviderAddress address, ProviderVersion version, Platform platform) {
        return CacheKey.of(
                address.hostname(),
                address.namespace(),
                address.type(),
                version.canonical(),
                archiveFileName(address, version, platform));
    }
}
