package io.providermirror.server.bundle;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.app.MirrorCore;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.upstream.ListedVersion;
import io.providermirror.upstream.PackageHashes;
import io.providermirror.upstream.VersionList;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Brings a bundle into a cache directory, trusting nothing in it until it is checked again: every entry
 * against the manifest's size and sha256 (read to at most one byte past the declared size), every release's
 * SHA256SUMS and signature with its origin's keys under the host's signature policy (pinned keys apply;
 * parent-mirror evidence only for a host configured with that parent), every archive against its verified
 * hash and against what the cache already holds: a cached version never changes (its cached, verified evidence
 * stays, and the bundle's must agree with it). Version lists are merged only for the versions the bundle carries.
 * Only when all of it holds does anything enter the cache; a bundle that fails any check is refused whole.
 * Reading is {@link BundleReader}'s job, checking {@link ReleaseChecks}'; this class commits.
 */
public final class BundleImporter {

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
    public record Report(
            int releases, int archives, long bytes, Map<String, TreeSet<String>> signingKeysByHost, int modules) {}

    private final MirrorCore core;
    private final CacheDocuments cache;
    private final BundleReader reader;

    public BundleImporter(MirrorCore core) {
        this(core, MAX_DOCUMENTS_TOTAL_BYTES);
    }

    /** As {@link #BundleImporter(MirrorCore)}, holding at most {@code maxDocumentsTotalBytes} of documents. */
    BundleImporter(MirrorCore core, long maxDocumentsTotalBytes) {
        this.core = core;
        this.cache = new CacheDocuments(core.documents());
        this.reader = new BundleReader(core.blobs(), maxDocumentsTotalBytes);
    }

    public Report importBundle(Path bundle) throws IOException {
        try (BundleContents contents = reader.read(bundle)) {
            List<ReleaseChecks.CheckedRelease> checked = new ArrayList<>();
            Report report = new ReleaseChecks(core, cache).check(contents, checked);
            List<ModuleChecks.CheckedModule> modules = new ArrayList<>();
            new ModuleChecks(core, cache).check(contents, modules);
            commit(contents, checked);
            commitModules(contents, modules);
            return new Report(
                    report.releases(), report.archives(), report.bytes(), report.signingKeysByHost(), modules.size());
        }
    }

    private void commit(BundleContents contents, List<ReleaseChecks.CheckedRelease> checked) throws IOException {
        Map<ProviderAddress, Set<ProviderVersion>> carried = new LinkedHashMap<>();
        for (ReleaseChecks.CheckedRelease release : checked) {
            ProviderAddress address = release.address();
            ProviderVersion version = release.version();
            Map<Platform, String> h1 = new TreeMap<>();
            for (Platform platform : release.platforms()) {
                BundleContents.StagedArchive staged =
                        contents.archives().get(CacheLayout.archive(address, version, platform));
                staged.write().commit(staged.sha256());
                h1.put(platform, PackageHashes.h1(staged.write().openReader()));
            }
            if (!release.cachedEvidenceStands()) {
                cache.writeReleaseEvidence(address, version, release.evidence());
            }
            // Beside the hashes known already; whoever shows this release hears of them.
            core.mirror().knownHashes().record(address, version, h1);
            carried.computeIfAbsent(address, a -> new HashSet<>()).add(version);
        }
        CacheDocuments bundled = new CacheDocuments(contents.documents());
        for (Map.Entry<ProviderAddress, Set<ProviderVersion>> provider : carried.entrySet()) {
            VersionList list =
                    bundled.versionList(provider.getKey()).orElseThrow().value();
            cache.writeVersionList(merged(list, provider.getValue()));
        }
    }

    /** Commits each checked module version's archive, and its pin where the cache had none. */
    private void commitModules(BundleContents contents, List<ModuleChecks.CheckedModule> modules) throws IOException {
        for (ModuleChecks.CheckedModule module : modules) {
            BundleContents.StagedArchive staged = contents.archives()
                    .get(CacheLayout.moduleArchive(
                            module.address(), module.version(), module.pin().archiveType()));
            staged.write().commit(staged.sha256());
            if (!module.pinnedAlready()) {
                cache.writeModulePin(module.address(), module.version(), module.pin());
            }
        }
    }

    /**
     * The versions the cache lists already, unchanged, joined by the bundle's {@code carried} versions (those whose
     * releases the bundle holds and that verified) that the cache does not list yet: an import only adds.
     */
    private VersionList merged(VersionList bundled, Set<ProviderVersion> carried) throws IOException {
        Map<ProviderVersion, ListedVersion> all = new TreeMap<>();
        try {
            cache.versionList(bundled.address())
                    .ifPresent(cached -> all.putAll(cached.value().versions()));
        } catch (CacheDocuments.Unreadable unreadable) {
            // The bundle's list replaces an unreadable one; a cache that cannot be read at all stops the import.
        }
        bundled.versions().keySet().stream()
                .filter(carried::contains)
                .forEach(version -> all.putIfAbsent(version, bundled.versions().get(version)));
        return new VersionList(bundled.address(), all);
    }
}
