package io.providermirror.server.bundle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.OpenBlob;
import io.providermirror.cache.StoredDocument;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.BuildInfo;
import io.providermirror.server.app.MirrorApplication;
import io.providermirror.server.app.MirrorCore;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.server.warm.Warmer;
import io.providermirror.upstream.PackageHashes;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
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
 * SHA256SUMS and signatures), and the archives; a manifest with every entry's sha256 comes first.
 */
public final class BundleExporter {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final MirrorCore core;

    public BundleExporter(MirrorCore core) {
        this.core = core;
    }

    /** One file to put in the bundle: its bytes, or a cached archive. */
    private record Item(String path, byte[] bytes, CacheKey archive, long size, String sha256) {
    }

    /**
     * Writes {@code archives} (each already in the cache, with its release) to {@code output}.
     *
     * @return the manifest written
     */
    public BundleManifest export(List<Warmer.Job> archives, Path output) throws IOException {
        Map<ProviderAddress, Map<ProviderVersion, TreeSet<Platform>>> byProvider = new TreeMap<>(
                (a, b) -> a.toString().compareTo(b.toString()));
        for (Warmer.Job job : archives) {
            byProvider.computeIfAbsent(job.address(), a -> new TreeMap<>())
                    .computeIfAbsent(job.version(), v -> new TreeSet<>()).add(job.platform());
        }
        List<Item> items = new ArrayList<>();
        List<BundleManifest.Release> releases = new ArrayList<>();
        for (var provider : byProvider.entrySet()) {
            ProviderAddress address = provider.getKey();
            items.add(bytesItem(path(CacheLayout.versions(address)), versionList(provider.getValue())));
            for (var version : provider.getValue().entrySet()) {
                CacheKey release = CacheLayout.release(address, version.getKey());
                StoredDocument evidence = core.documents().read(release).orElseThrow(() -> new IOException(
                        "the cache holds no verified release of " + address + " " + version.getKey()));
                items.add(bytesItem(path(release), evidence.content()));
                List<String> platforms = new ArrayList<>();
                for (Platform platform : version.getValue()) {
                    CacheKey key = CacheLayout.archive(address, version.getKey(), platform);
                    try (OpenBlob blob = core.blobs().open(key).orElseThrow(() -> new IOException(
                            "the cache holds no archive of " + address + " " + version.getKey() + " " + platform))) {
                        items.add(new Item(path(key), null, key, blob.blob().size(), blob.blob().sha256()));
                    }
                    platforms.add(platform.toString());
                }
                releases.add(new BundleManifest.Release(address.toString(), version.getKey().toString(), platforms));
            }
        }
        BundleManifest manifest = new BundleManifest(BundleManifest.FORMAT, Instant.now().toString(),
                "provider-mirror " + BuildInfo.VERSION,
                items.stream().map(i -> new BundleManifest.Entry(i.path(), i.size(), i.sha256())).toList(), releases);
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
                    try (OpenBlob blob = core.blobs().open(item.archive()).orElseThrow(() -> new IOException(
                            "the archive " + item.archive() + " left the cache while the bundle was written"))) {
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

    /** The registry's version list form, with just the bundled versions and platforms. */
    private static byte[] versionList(Map<ProviderVersion, ? extends SortedSet<Platform>> versions) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode list = root.putArray("versions");
        for (var version : versions.entrySet()) {
            ArrayNode platforms = list.addObject().put("version", version.getKey().toString()).putArray("platforms");
            version.getValue().forEach(p -> platforms.addObject().put("os", p.os()).put("arch", p.arch()));
        }
        return JSON.writeValueAsBytes(root);
    }

    private static Item bytesItem(String path, byte[] bytes) {
        return new Item(path, bytes, null, bytes.length, sha256(bytes));
    }

    private static void put(TarArchiveOutputStream tar, String path, byte[] bytes) throws IOException {
        TarArchiveEntry entry = new TarArchiveEntry(path);
        entry.setSize(bytes.length);
        tar.putArchiveEntry(entry);
        tar.write(bytes);
        tar.closeArchiveEntry();
    }

    static String path(CacheKey key) {
        return key.toString();
    }

    static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(PackageHashes.sha256().digest(bytes));
    }
}
