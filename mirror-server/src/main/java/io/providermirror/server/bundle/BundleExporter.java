package io.providermirror.server.bundle;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.OpenBlob;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.BuildInfo;
import io.providermirror.server.app.MirrorWiring;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.server.face.modules.StoredModule;
import io.providermirror.server.warm.Warmer;
import io.providermirror.upstream.ListedVersion;
import io.providermirror.upstream.VersionList;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * Writes a bundle of cached releases: for each provider a version list of just the bundled versions, for
 * each version its evidence exactly as the origin served it (download documents with their signing keys,
 * SHA256SUMS and signatures), and the archives; for each registry module a version list of just the bundled
 * versions, and each version's pin and archive; a manifest with every entry's sha256 comes first. The
 * documents are the cache's own, written by {@link CacheDocuments} as the cache holds them.
 */
public final class BundleExporter {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final MirrorWiring core;
    private final CacheDocuments cache;

    public BundleExporter(MirrorWiring core) {
        this.core = core;
        this.cache = new CacheDocuments(core.documents());
    }

    /** One file to put in the bundle: its bytes, or a cached archive. */
    private record Item(String path, byte[] bytes, CacheKey archive, long size, String sha256) {}

    /**
     * Writes {@code archives} (each already in the cache, with its release) to {@code output}.
     *
     * @return the manifest written
     */
    public BundleManifest export(List<Warmer.Job> archives, Path output) throws IOException {
        return export(archives, List.of(), output);
    }

    /**
     * Writes {@code archives} and the registry module versions {@code modules} (each cached and pinned, with its
     * pin) to {@code output}.
     *
     * @return the manifest written
     */
    public BundleManifest export(List<Warmer.Job> archives, List<StoredModule> modules, Path output)
            throws IOException {
        Map<ProviderAddress, Map<ProviderVersion, TreeSet<Platform>>> byProvider =
                new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
        for (Warmer.Job job : archives) {
            byProvider
                    .computeIfAbsent(job.address(), a -> new TreeMap<>())
                    .computeIfAbsent(job.version(), v -> new TreeSet<>())
                    .add(job.platform());
        }
        List<Item> items = new ArrayList<>();
        List<BundleManifest.Release> releases = new ArrayList<>();
        BundleDocuments documents = new BundleDocuments();
        CacheDocuments bundled = new CacheDocuments(documents);
        for (var provider : byProvider.entrySet()) {
            ProviderAddress address = provider.getKey();
            bundled.writeVersionList(versionList(address, provider.getValue()));
            items.add(bytesItem(path(CacheLayout.versions(address)), documents.bytes(CacheLayout.versions(address))));
            for (var version : provider.getValue().entrySet()) {
                CacheKey release = CacheLayout.release(address, version.getKey());
                bundled.writeReleaseEvidence(
                        address,
                        version.getKey(),
                        cache.releaseEvidence(address, version.getKey())
                                .orElseThrow(() -> new IOException(
                                        "the cache holds no verified release of " + address + " " + version.getKey()))
                                .value());
                items.add(bytesItem(path(release), documents.bytes(release)));
                List<String> platforms = new ArrayList<>();
                for (Platform platform : version.getValue()) {
                    CacheKey key = CacheLayout.archive(address, version.getKey(), platform);
                    try (OpenBlob blob = core.blobs()
                            .open(key)
                            .orElseThrow(() -> new IOException("the cache holds no archive of " + address + " "
                                    + version.getKey() + " " + platform))) {
                        items.add(new Item(
                                path(key),
                                null,
                                key,
                                blob.blob().size(),
                                blob.blob().sha256()));
                    }
                    platforms.add(platform.toString());
                }
                releases.add(new BundleManifest.Release(
                        address.toString(), version.getKey().toString(), platforms));
            }
        }
        List<BundleManifest.Module> moduleVersions = new ArrayList<>();
        Map<ModuleAddress, TreeSet<ProviderVersion>> byModule = new LinkedHashMap<>();
        modules.forEach(module ->
                byModule.computeIfAbsent(module.address(), a -> new TreeSet<>()).add(module.version()));
        for (var module : byModule.entrySet()) {
            // As for providers: just the bundled versions, so the CLI inside never picks one the bundle lacks.
            CacheKey list = CacheLayout.moduleVersions(module.getKey());
            bundled.writeModuleVersionList(module.getKey(), List.copyOf(module.getValue()));
            items.add(bytesItem(path(list), documents.bytes(list)));
        }
        for (StoredModule module : modules) {
            CacheKey pin = CacheLayout.modulePin(module.address(), module.version());
            bundled.writeModulePin(module.address(), module.version(), module.pin());
            items.add(bytesItem(path(pin), documents.bytes(pin)));
            CacheKey key = CacheLayout.moduleArchive(
                    module.address(), module.version(), module.pin().archiveType());
            try (OpenBlob blob = core.blobs()
                    .open(key)
                    .orElseThrow(() -> new IOException(
                            "the cache holds no archive of module " + module.address() + " " + module.version()))) {
                items.add(new Item(
                        path(key), null, key, blob.blob().size(), blob.blob().sha256()));
            }
            moduleVersions.add(new BundleManifest.Module(
                    module.address().toString(), module.version().toString()));
        }
        BundleManifest manifest = new BundleManifest(
                BundleManifest.FORMAT,
                Instant.now().toString(),
                "provider-mirror " + BuildInfo.VERSION,
                items.stream()
                        .map(i -> new BundleManifest.Entry(i.path(), i.size(), i.sha256()))
                        .toList(),
                releases,
                moduleVersions);
        Path partial = output.resolveSibling(output.getFileName() + ".partial");
        try (OutputStream file = BundleFiles.write(partial, output);
                TarArchiveOutputStream tar = new TarArchiveOutputStream(file)) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            put(tar, BundleManifest.PATH, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(manifest));
            for (Item item : items) {
                if (item.bytes() != null) {
                    put(tar, item.path(), item.bytes());
                } else {
                    try (OpenBlob blob = core.blobs()
                            .open(item.archive())
                            .orElseThrow(() -> new IOException("the archive " + item.archive()
                                    + " left the cache while the bundle was written"))) {
                        TarArchiveEntry entry = new TarArchiveEntry(item.path());
                        entry.setSize(blob.blob().size());
                        tar.putArchiveEntry(entry);
                        blob.inputStream().transferTo(tar);
                        tar.closeArchiveEntry();
                    }
                }
            }
        }
        Files.move(partial, output, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return manifest;
    }

    /** The version list of {@code address} with just the bundled versions and platforms. */
    private static VersionList versionList(
            ProviderAddress address, Map<ProviderVersion, ? extends SortedSet<Platform>> versions) {
        Map<ProviderVersion, ListedVersion> listed = new LinkedHashMap<>();
        versions.forEach((version, platforms) ->
                listed.put(version, new ListedVersion(version, version.toString(), List.copyOf(platforms))));
        return new VersionList(address, listed);
    }

    private static Item bytesItem(String path, byte[] bytes) {
        return new Item(path, bytes, null, bytes.length, BundleFiles.sha256(bytes));
    }

    private static void put(TarArchiveOutputStream tar, String path, byte[] bytes) throws IOException {
        TarArchiveEntry entry = new TarArchiveEntry(path);
        entry.setSize(bytes.length);
        tar.putArchiveEntry(entry);
        tar.write(bytes);
        tar.closeArchiveEntry();
    }

    private static String path(CacheKey key) {
        return key.toString();
    }
}
