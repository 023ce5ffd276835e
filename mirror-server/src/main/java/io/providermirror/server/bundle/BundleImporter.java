package io.providermirror.server.bundle;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.StoredDocument;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.app.MirrorCore;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.upstream.ListedVersion;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.PackageHashes;
import io.providermirror.upstream.ReleaseEvidence;
import io.providermirror.upstream.ReleaseVerifier;
import io.providermirror.upstream.VerifiedPackage;
import io.providermirror.upstream.VerifiedRelease;
import io.providermirror.upstream.VersionList;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * Brings a bundle into a cache directory, trusting nothing in it until it is checked again: every entry
 * against the manifest's size and sha256 (read to at most one byte past the declared size), every release's
 * SHA256SUMS and signature with its origin's keys under the host's signature policy (pinned keys apply;
 * parent-mirror evidence only for a host configured with that parent), every archive against its verified
 * hash and against what the cache already holds: a cached version never changes (its cached, verified evidence
 * stays, and the bundle's must agree with it). Version lists are merged only for the versions the bundle carries.
 * Only when all of it holds does anything enter the cache; a bundle that fails any check is refused whole.
 */
public final class BundleImporter {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;
    /** All documents of a bundle are held in memory until it verified: together at most this many bytes. */
    static final long MAX_DOCUMENTS_TOTAL_BYTES = 256L * 1024 * 1024;

    /** The bundle does not verify; nothing was imported. */
    public static final class RefusedException extends IOException {
        private static final long serialVersionUID = 1L;

        RefusedException(String message) {
            super(message);
        }
    }

    /** What an import brought in, and which keys vouched for it. */
    public record Report(int releases, int archives, long bytes, Map<String, TreeSet<String>> signingKeysByHost) {
    }

    private final MirrorCore core;
    private final long maxDocumentsTotalBytes;

    public BundleImporter(MirrorCore core) {
        this(core, MAX_DOCUMENTS_TOTAL_BYTES);
    }

    /** As {@link #BundleImporter(MirrorCore)}, holding at most {@code maxDocumentsTotalBytes} of documents. */
    BundleImporter(MirrorCore core, long maxDocumentsTotalBytes) {
        this.core = core;
        this.maxDocumentsTotalBytes = maxDocumentsTotalBytes;
    }

    /** An archive written to a temporary file of the store, committed only when everything verified. */
    private record Staged(BlobWrite write, String sha256, long size) {
    }

    public Report importBundle(Path bundle) throws IOException {
        Map<String, byte[]> documents = new LinkedHashMap<>();
        Map<String, Staged> archives = new LinkedHashMap<>();
        Set<CacheKey> cachedEvidence = new HashSet<>();
        try {
            BundleManifest manifest = read(bundle, documents, archives);
            Report report = verify(manifest, documents, archives, cachedEvidence);
            commit(manifest, documents, archives, cachedEvidence);
            return report;
        } finally {
            // Committed writes ignore this; the others leave nothing behind.
            archives.values().forEach(staged -> staged.write().abort());
        }
    }

    private BundleManifest read(Path bundle, Map<String, byte[]> documents, Map<String, Staged> archives)
            throws IOException {
        BundleManifest manifest;
        Map<String, BundleManifest.Entry> expected = new LinkedHashMap<>();
        try (BundleFiles.StreamEnd file = BundleFiles.open(bundle); BundleTar tar = new BundleTar(BundleFiles.read(file))) {
            TarArchiveEntry first = tar.getNextEntry();
            if (first == null || !first.getName().equals(BundleManifest.PATH)) {
                throw new RefusedException(bundle + " is not a provider-mirror bundle: it does not begin with "
                        + BundleManifest.PATH);
            }
            manifest = JSON.readValue(bounded(tar, first, MAX_DOCUMENT_BYTES), BundleManifest.class);
            if (manifest.format() != BundleManifest.FORMAT) {
                throw new RefusedException(bundle + " has bundle format " + manifest.format() + "; this mirror reads "
                        + BundleManifest.FORMAT);
            }
            manifest.entries().forEach(entry -> expected.put(entry.path(), entry));
            long documentBytes = 0;
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                String name = entry.getName();
                BundleManifest.Entry declared = expected.get(name);
                if (declared == null || documents.containsKey(name) || archives.containsKey(name)) {
                    throw new RefusedException(bundle + ": the entry " + name + " is not in the manifest, or is there twice");
                }
                CacheKey key = key(name);
                if (entry.getSize() != declared.size()) {
                    throw new RefusedException(bundle + ": the entry " + name + " is " + entry.getSize()
                            + " bytes in the tar, but the manifest says " + declared.size());
                }
                if (name.endsWith(".zip")) {
                    archives.put(name, stage(tar, key, declared));
                } else {
                    documentBytes += declared.size();
                    if (documentBytes > maxDocumentsTotalBytes) {
                        throw new RefusedException(bundle + ": its documents (version lists and release evidence) "
                                + "add up to more than " + maxDocumentsTotalBytes + " bytes, more than a bundle may "
                                + "hold; split it into several bundles");
                    }
                    byte[] bytes = bounded(tar, entry, declared.size());
                    check(declared, bytes.length, BundleExporter.sha256(bytes));
                    documents.put(name, bytes);
                }
            }
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw new RefusedException(bundle + ": the manifest is not valid: " + e.getOriginalMessage());
        }
        List<String> listed = List.copyOf(expected.keySet());
        List<String> missing = listed.stream()
                .filter(name -> !documents.containsKey(name) && !archives.containsKey(name)).toList();
        if (!missing.isEmpty()) {
            // Export writes the entries in the manifest's order: when exactly the last ones are missing, the
            // file ended early (at an entry's boundary, so the tar itself could not tell).
            if (missing.equals(listed.subList(listed.size() - missing.size(), listed.size()))) {
                throw new RefusedException(TRUNCATED + ": the file ends after " + (listed.size() - missing.size())
                        + " of the " + listed.size() + " entries of its manifest, before " + missing.get(0) + COPY_AGAIN);
            }
            throw new RefusedException(bundle + " is incomplete: " + missing.size()
                    + " entries of its manifest are missing, e.g. " + missing.get(0));
        }
        return manifest;
    }

    private static final String TRUNCATED = "the bundle is truncated";
    private static final String COPY_AGAIN = "; copy the whole file again from where it was exported";

    /**
     * The bundle's tar, for which a read that fails once its contents have ended means the file ended before
     * the tar did: the bundle is truncated (a partial download or copy), said in those words. Any other failed
     * read refuses the bundle too, as one that cannot be read.
     */
    private static final class BundleTar extends TarArchiveInputStream {
        private final BundleFiles.StreamEnd contents;
        private String entry;

        BundleTar(BundleFiles.StreamEnd contents) {
            super(contents);
            this.contents = contents;
        }

        @Override
        public TarArchiveEntry getNextEntry() throws IOException {
            try {
                TarArchiveEntry next = super.getNextEntry();
                if (next != null) {
                    entry = next.getName();
                }
                return next;
            } catch (IOException e) {
                throw truncatedOr(e, entry == null ? "before its first entry" : "after the entry " + entry);
            }
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            try {
                return super.read(buffer, offset, length);
            } catch (IOException e) {
                throw truncatedOr(e, "inside the entry " + entry);
            }
        }

        /** A failed read of the bundle: it was cut short, or it is not a bundle; either way, refused. */
        private IOException truncatedOr(IOException e, String where) {
            if (e instanceof RefusedException) {
                return e;
            }
            if (contents.ended()) {
                return new RefusedException(TRUNCATED + ": the file ends " + where + COPY_AGAIN);
            }
            String why = java.util.Objects.toString(e.getMessage(), e.getClass().getSimpleName());
            return new RefusedException("the file cannot be read as a bundle (a tar, or a tar compressed with zstd), "
                    + where + ": " + why.replaceFirst("\\.$", ""));
        }
    }

    private Staged stage(TarArchiveInputStream tar, CacheKey key, BundleManifest.Entry declared) throws IOException {
        BlobWrite write = core.blobs().create(key);
        MessageDigest digest = PackageHashes.sha256();
        byte[] buffer = new byte[64 * 1024];
        long size = 0;
        int n;
        // At most one byte more than the manifest declares: enough to tell the entry is larger, never enough to
        // let an oversized entry fill the disk before it is refused.
        long limit = declared.size() + 1;
        try {
            while (size < limit && (n = tar.read(buffer, 0, (int) Math.min(buffer.length, limit - size))) >= 0) {
                digest.update(buffer, 0, n);
                write.write(ByteBuffer.wrap(buffer, 0, n));
                size += n;
            }
            String sha = HexFormat.of().formatHex(digest.digest());
            check(declared, size, sha);
            return new Staged(write, sha, size);
        } catch (IOException | RuntimeException e) {
            write.abort();
            throw e;
        }
    }

    private static void check(BundleManifest.Entry declared, long size, String sha256) throws RefusedException {
        if (size != declared.size() || !sha256.equals(declared.sha256())) {
            throw new RefusedException("the entry " + declared.path() + " was altered: it is " + size + " bytes with "
                    + "sha256 " + sha256 + ", but the manifest says " + declared.size() + " bytes, " + declared.sha256());
        }
    }

    /**
     * Checks every release of the bundle; {@code cachedEvidence} receives the releases whose cached, verified
     * evidence stands (the bundle's is then only checked against it, never stored).
     */
    private Report verify(BundleManifest manifest, Map<String, byte[]> documents, Map<String, Staged> archives,
                          Set<CacheKey> cachedEvidence) throws IOException {
        Map<String, TreeSet<String>> keys = new TreeMap<>();
        long bytes = 0;
        for (BundleManifest.Release release : manifest.releases()) {
            ProviderAddress address = address(release.provider());
            ProviderVersion version = ProviderVersion.parse(release.version()).orElseThrow(() ->
                    new RefusedException("the manifest names version '" + release.version() + "', which is not semver"));
            String what = address + " " + version;
            if (release.platforms().isEmpty()) {
                throw new RefusedException(what + ": the manifest lists no platform for it; a bundle carries a release "
                        + "with the archives it holds");
            }
            Optional<String> unservable = core.mirror().refusal(address, version);
            if (unservable.isPresent()) {
                throw new RefusedException(what + ": this mirror would never serve it (" + unservable.get()
                        + "), so it imports nothing of it");
            }
            String versionsPath = BundleExporter.path(CacheLayout.versions(address));
            byte[] versions = documents.get(versionsPath);
            byte[] evidence = documents.get(BundleExporter.path(CacheLayout.release(address, version)));
            if (versions == null || evidence == null) {
                throw new RefusedException(what + ": the bundle lacks its version list or its release evidence");
            }
            VerifiedRelease verified;
            try {
                VersionList.parse(address, versions, "the bundle");
                verified = ReleaseVerifier.verify(address, version, JSON.readValue(evidence, ReleaseEvidence.class),
                        core.rules().signaturePolicy(address.hostname()));
            } catch (OriginException | IOException | IllegalArgumentException e) {
                throw new RefusedException(what + " does not verify: " + e.getMessage());
            }
            // A committed archive never changes, whatever evidence vouches for its version now: every package the
            // bundle's evidence names, carried or not, must agree with the archive the cache holds for it.
            for (VerifiedPackage offered : verified.packages().values()) {
                var committed = core.blobs().find(CacheLayout.archive(address, version, offered.platform()));
                if (committed.isPresent() && offered.sha256() != null
                        && !committed.get().sha256().equals(offered.sha256())) {
                    throw new RefusedException(what + " " + offered.platform() + ": the cache already holds a verified "
                            + "archive with sha256 " + committed.get().sha256() + ", and the bundle's evidence says sha256 "
                            + offered.sha256() + "; a cached version never changes, so the cached one stays");
                }
            }
            // A verified version never changes: when the cache holds its evidence, that evidence stays, and the
            // bundle must agree with it.
            VerifiedRelease cached = cachedRelease(address, version);
            if (cached != null) {
                cachedEvidence.add(CacheLayout.release(address, version));
                for (VerifiedPackage offered : verified.packages().values()) {
                    VerifiedPackage known = cached.find(offered.platform()).orElse(null);
                    if (known != null && contradicts(known, offered)) {
                        throw new RefusedException(what + " " + offered.platform() + ": the cache already holds this "
                                + "version, verified with " + hashes(known) + " for this platform, and the bundle's "
                                + "evidence says " + hashes(offered) + "; a cached version never changes, so the cached "
                                + "one stays");
                    }
                }
            }
            for (String platformName : release.platforms()) {
                Platform platform;
                try {
                    platform = Platform.parse(platformName);
                } catch (IllegalArgumentException e) {
                    throw new RefusedException(what + ": the manifest names " + e.getMessage());
                }
                VerifiedPackage pkg = verified.find(platform).orElseThrow(() ->
                        new RefusedException(what + ": its verified release has no package for " + platform));
                String path = BundleExporter.path(CacheLayout.archive(address, version, platform));
                Staged staged = archives.get(path);
                if (staged == null) {
                    throw new RefusedException(what + " " + platform + ": the bundle lacks its archive");
                }
                if (pkg.sha256() != null ? !pkg.sha256().equals(staged.sha256())
                        : !pkg.h1().contains(PackageHashes.h1(staged.write().openReader()))) {
                    throw new RefusedException(what + " " + platform + ": the archive does not match the verified hash ("
                            + (pkg.sha256() != null ? "sha256 " + pkg.sha256() : String.join(", ", pkg.h1())) + ")");
                }
                VerifiedPackage known = cached == null ? null : cached.find(platform).orElseThrow(() ->
                        new RefusedException(what + " " + platform + ": the cache already holds this version, verified, "
                                + "and it has no package for this platform; a cached version never changes"));
                if (known != null && (known.sha256() != null ? !known.sha256().equals(staged.sha256())
                        : !known.h1().contains(PackageHashes.h1(staged.write().openReader())))) {
                    throw new RefusedException(what + " " + platform + ": the cache already holds this version, verified "
                            + "with " + hashes(known) + " for this platform, and the bundle's archive has sha256 "
                            + staged.sha256() + "; a cached version never changes, so the cached one stays");
                }
                var committed = core.blobs().find(CacheLayout.archive(address, version, platform));
                if (committed.isPresent() && !committed.get().sha256().equals(staged.sha256())) {
                    throw new RefusedException(what + " " + platform + ": the cache already holds a verified archive "
                            + "with sha256 " + committed.get().sha256() + ", and the bundle's has sha256 "
                            + staged.sha256() + "; a cached version never changes, so the cached one stays");
                }
                keys.computeIfAbsent(address.hostname(), h -> new TreeSet<>()).add(pkg.signingKeyId());
                bytes += staged.size();
            }
        }
        return new Report(manifest.releases().size(), archives.size(), bytes, keys);
    }

    /**
     * True when two verified packages of one platform cannot both be right: different sha256, or (where only
     * {@code h1:} hashes are known on both sides) no hash in common. A package known by sha256 on one side and
     * by {@code h1:} only on the other is checked against the archive instead.
     */
    private static boolean contradicts(VerifiedPackage known, VerifiedPackage offered) {
        if (known.sha256() != null && offered.sha256() != null) {
            return !known.sha256().equals(offered.sha256());
        }
        if (known.sha256() == null && offered.sha256() == null) {
            return known.h1().stream().noneMatch(offered.h1()::contains);
        }
        return false;
    }

    private static String hashes(VerifiedPackage pkg) {
        return pkg.sha256() != null ? "sha256 " + pkg.sha256() : String.join(", ", pkg.h1());
    }

    /** The release the cache holds already, if its evidence still verifies under this mirror's rules. */
    private VerifiedRelease cachedRelease(ProviderAddress address, ProviderVersion version) throws IOException {
        java.util.Optional<StoredDocument> stored = core.documents().read(CacheLayout.release(address, version));
        if (stored.isEmpty()) {
            return null;
        }
        try {
            return ReleaseVerifier.verify(address, version, JSON.readValue(stored.get().content(), ReleaseEvidence.class),
                    core.rules().signaturePolicy(address.hostname()));
        } catch (OriginException | IOException | IllegalArgumentException unverifiable) {
            // The mirror drops such evidence when it reads it; it vouches for nothing here either.
            return null;
        }
    }

    private void commit(BundleManifest manifest, Map<String, byte[]> documents, Map<String, Staged> archives,
                        Set<CacheKey> cachedEvidence) throws IOException {
        for (BundleManifest.Release release : manifest.releases()) {
            ProviderAddress address = address(release.provider());
            ProviderVersion version = ProviderVersion.parse(release.version()).orElseThrow();
            Map<String, String> h1 = new TreeMap<>(readHashes(address, version));
            for (String platformName : release.platforms()) {
                Platform platform = Platform.parse(platformName);
                Staged staged = archives.get(BundleExporter.path(CacheLayout.archive(address, version, platform)));
                staged.write().commit(staged.sha256());
                h1.put(platform.toString(), PackageHashes.h1(staged.write().openReader()));
            }
            if (!cachedEvidence.contains(CacheLayout.release(address, version))) {
                core.documents().write(CacheLayout.release(address, version),
                        documents.get(BundleExporter.path(CacheLayout.release(address, version))));
            }
            core.documents().write(CacheLayout.packageHashes(address, version), JSON.writeValueAsBytes(h1));
        }
        Map<ProviderAddress, java.util.Set<ProviderVersion>> carried = new LinkedHashMap<>();
        for (BundleManifest.Release release : manifest.releases()) {
            carried.computeIfAbsent(address(release.provider()), a -> new java.util.HashSet<>())
                    .add(ProviderVersion.parse(release.version()).orElseThrow());
        }
        for (Map.Entry<String, byte[]> document : documents.entrySet()) {
            if (document.getKey().endsWith("/versions.json")) {
                CacheKey key = key(document.getKey());
                ProviderAddress address = address(String.join("/", key.segments().subList(0, 3)));
                if (carried.containsKey(address)) {
                    core.documents().write(key, mergedVersions(address, document.getValue(), carried.get(address)));
                }
            }
        }
    }

    /**
     * The versions the cache lists already, unchanged, joined by the bundle's {@code carried} versions (those whose
     * releases the bundle holds and that verified) that the cache does not list yet: an import only adds.
     */
    private byte[] mergedVersions(ProviderAddress address, byte[] bundled, java.util.Set<ProviderVersion> carried)
            throws IOException {
        Map<ProviderVersion, ListedVersion> all = new TreeMap<>();
        java.util.Optional<StoredDocument> existing = core.documents().read(CacheLayout.versions(address));
        if (existing.isPresent()) {
            try {
                all.putAll(VersionList.parse(address, existing.get().content(), "the cache").versions());
            } catch (OriginException unreadable) {
                // The bundle's list replaces an unreadable one.
            }
        }
        // What the cache lists stays as it is; the bundle only adds the versions it carries and that verified.
        Map<ProviderVersion, ListedVersion> bundledVersions = VersionList.parse(address, bundled, "the bundle").versions();
        bundledVersions.keySet().stream().filter(carried::contains)
                .forEach(version -> all.putIfAbsent(version, bundledVersions.get(version)));
        ObjectNode root = JSON.createObjectNode();
        ArrayNode list = root.putArray("versions");
        for (ListedVersion listed : all.values()) {
            ArrayNode platforms = list.addObject().put("version", listed.originSpelling()).putArray("platforms");
            listed.platforms().forEach(p -> platforms.addObject().put("os", p.os()).put("arch", p.arch()));
        }
        return JSON.writeValueAsBytes(root);
    }

    private Map<String, String> readHashes(ProviderAddress address, ProviderVersion version) throws IOException {
        java.util.Optional<StoredDocument> stored = core.documents().read(CacheLayout.packageHashes(address, version));
        return stored.isEmpty() ? Map.of() : JSON.readValue(stored.get().content(), new TypeReference<Map<String, String>>() {
        });
    }

    /** An entry name as a cache key: every segment validated, so no name can reach outside the cache. */
    private static CacheKey key(String name) throws RefusedException {
        try {
            CacheKey key = new CacheKey(List.of(name.split("/", -1)));
            if (key.segments().size() != 4 && key.segments().size() != 5) {
                throw new IllegalArgumentException("unexpected depth");
            }
            return key;
        } catch (IllegalArgumentException e) {
            throw new RefusedException("the bundle holds an entry whose name is not a cache path: " + name);
        }
    }

    private static ProviderAddress address(String text) throws RefusedException {
        String[] parts = text.split("/");
        try {
            return new ProviderAddress(parts[0], parts[1], parts[2]);
        } catch (RuntimeException e) {
            throw new RefusedException("the manifest names '" + text + "', which is not a provider address");
        }
    }

    /** A document entry, read to at most one byte more than {@code declared} (or than any document may be). */
    private static byte[] bounded(TarArchiveInputStream tar, TarArchiveEntry entry, long declared) throws IOException {
        if (entry.getSize() > MAX_DOCUMENT_BYTES || declared > MAX_DOCUMENT_BYTES) {
            throw new RefusedException("the entry " + entry.getName() + " is " + Math.max(entry.getSize(), declared)
                    + " bytes, more than a document of a bundle may be");
        }
        return tar.readNBytes((int) Math.max(0, declared) + 1);
    }

}
