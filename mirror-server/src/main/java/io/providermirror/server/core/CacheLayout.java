package io.providermirror.server.core;

import io.providermirror.cache.CacheKey;
import io.providermirror.model.ModuleAddress;
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

    /** When the mirror first saw each version of {@code address} ({@link VersionSightings}). */
    public static CacheKey sightings(ProviderAddress address) {
        return CacheKey.of(address.hostname(), address.namespace(), address.type(), "sightings.json");
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

    /** The recent purges, which every instance sharing the cache follows ({@code purge.PurgeRecord}). */
    public static CacheKey purges() {
        return CacheKey.of("_purges", "purges.json");
    }

    /** The top of the modules' part of the cache: a name no hostname can have, so it never meets a provider. */
    public static final String MODULES = "_modules";

    public static CacheKey moduleVersions(ModuleAddress address) {
        return CacheKey.of(
                MODULES, address.hostname(), address.namespace(), address.name(), address.system(), "versions.json");
    }

    /** When the mirror first saw each version of module {@code address} ({@link VersionSightings}). */
    public static CacheKey moduleSightings(ModuleAddress address) {
        return CacheKey.of(
                MODULES, address.hostname(), address.namespace(), address.name(), address.system(), "sightings.json");
    }

    /**
     * The pin of a module version. Kept by the version without build metadata, as the CLI matches versions: the
     * spellings {@code 1.0.0} and {@code 1.0.0+x} of one version share one pin (and one archive).
     */
    public static CacheKey modulePin(ModuleAddress address, ProviderVersion version) {
        return CacheKey.of(
                MODULES,
                address.hostname(),
                address.namespace(),
                address.name(),
                address.system(),
                version.withoutBuildMetadata().canonical(),
                "pin.json");
    }

    /** The archive of a module version, by its extension ({@code tar.gz}, {@code zip}, ...), beside its pin. */
    public static CacheKey moduleArchive(ModuleAddress address, ProviderVersion version, String extension) {
        return CacheKey.of(
                MODULES,
                address.hostname(),
                address.namespace(),
                address.name(),
                address.system(),
                version.withoutBuildMetadata().canonical(),
                "module." + extension);
    }

    /** What the full module registry API told the mirror of a host's modules, for answers without the origin. */
    public static CacheKey moduleCatalog(String hostname) {
        return CacheKey.of(MODULES, hostname, "catalog.json");
    }

    /** A module version's details as the full module registry API gave them, beside its pin. */
    public static CacheKey moduleDetails(ModuleAddress address, ProviderVersion version) {
        return CacheKey.of(
                MODULES,
                address.hostname(),
                address.namespace(),
                address.name(),
                address.system(),
                version.withoutBuildMetadata().canonical(),
                "details.json");
    }

    /** Whether {@code key} lies under {@code prefix}: its first segments are those, and it has more. */
    public static boolean under(CacheKey key, java.util.List<String> prefix) {
        java.util.List<String> segments = key.segments();
        return segments.size() > prefix.size()
                && segments.subList(0, prefix.size()).equals(prefix);
    }
}
