package io.providermirror.server.bundle;

import io.providermirror.cache.CacheKey;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.app.MirrorWiring;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.server.core.ModulePin;
import io.providermirror.server.tlog.Decision;
import io.providermirror.upstream.ListedVersion;
import io.providermirror.upstream.VersionList;
import io.providermirror.upstream.verify.PackageHashes;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;

/**
 * Brings a bundle into a cache directory, trusting nothing in it until it is checked again: every entry
 * against the manifest's size and sha256 (read to at most one byte past the declared size), every release's
 * SHA256SUMS and signature with its origin's keys under the host's signature policy (pinned keys apply;
 * parent-mirror evidence only for a host configured with that parent), every archive against its verified
 * hash and against what the cache already holds: a cached version never changes (its cached, verified evidence
 * stays, and the bundle's must agree with it). Version lists, of providers and of modules, are merged only for the
 * versions the bundle carries. Only when all of it holds does anything enter the cache; a bundle that fails any
 * check is refused whole. Reading is {@link BundleReader}'s job, checking {@link ReleaseChecks}' and
 * {@link ModuleChecks}'; this class commits.
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

    /**
     * What an import brought in: what the bundle carries (all of it verified), which keys vouched for it, and what of
     * it this cache lacked: archives of providers, module versions, and versions its version lists did not name.
     */
    public record Report(
            BundleCounts carried,
            Map<String, SortedSet<String>> signingKeysByHost,
            int newArchives,
            int newModuleVersions,
            int newlyListed,
            Set<ProviderAddress> providers,
            Set<ModuleAddress> modules) {

        public Report {
            providers = Set.copyOf(providers);
            modules = Set.copyOf(modules);
        }

        /** True when the cache held everything the bundle carries already: the import changed nothing. */
        public boolean addedNothing() {
            return newArchives == 0 && newModuleVersions == 0 && newlyListed == 0;
        }

        /** What the import added to the cache, or that it added nothing, in the words {@code import} prints. */
        public String outcome() {
            if (addedNothing()) {
                return "verified; nothing new: the cache held all of it already";
            }
            return "verified and cached; new here: " + newArchives + " archive(s), " + newModuleVersions
                    + " module version(s), " + newlyListed + " version(s) added to version lists";
        }
    }

    private final MirrorWiring core;
    private final CacheDocuments cache;
    private final BundleReader reader;

    public BundleImporter(MirrorWiring core) {
        this(core, MAX_DOCUMENTS_TOTAL_BYTES);
    }

    /** As {@link #BundleImporter(MirrorWiring)}, holding at most {@code maxDocumentsTotalBytes} of documents. */
    BundleImporter(MirrorWiring core, long maxDocumentsTotalBytes) {
        this.core = core;
        this.cache = new CacheDocuments(core.documents());
        this.reader = new BundleReader(core.blobs(), maxDocumentsTotalBytes);
    }

    public Report importBundle(Path bundle) throws IOException {
        try (BundleContents contents = reader.read(bundle)) {
            List<ReleaseChecks.CheckedRelease> checked = new ArrayList<>();
            Map<String, SortedSet<String>> keys = new ReleaseChecks(core, cache).check(contents, checked);
            List<ModuleChecks.CheckedModule> modules = new ArrayList<>();
            new ModuleChecks(core, cache).check(contents, modules);
            Added added = new Added();
            commit(contents, checked, added);
            commitModules(contents, modules, added);
            core.log()
                    .decisions()
                    .record(Decision.imported(
                            sha256(bundle),
                            BundleCounts.of(contents.manifest()).providerVersions(),
                            BundleCounts.of(contents.manifest()).moduleVersions(),
                            added.archives,
                            added.moduleVersions));
            Set<ProviderAddress> providers = new HashSet<>();
            checked.forEach(release -> providers.add(release.address()));
            Set<ModuleAddress> moduleAddresses = new HashSet<>();
            modules.forEach(module -> moduleAddresses.add(module.address()));
            return new Report(
                    BundleCounts.of(contents.manifest()),
                    keys,
                    added.archives,
                    added.moduleVersions,
                    added.listed,
                    providers,
                    moduleAddresses);
        }
    }

    /** The sha256 of the bundle file, for the log: what an auditor compares with the file that was carried in. */
    private static String sha256(Path bundle) throws IOException {
        java.security.MessageDigest digest = PackageHashes.sha256();
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(bundle)) {
            byte[] buffer = new byte[1 << 16];
            for (int read; (read = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, read);
            }
        }
        return java.util.HexFormat.of().formatHex(digest.digest());
    }

    /** What the commits added that the cache lacked. */
    private static final class Added {
        int archives;
        int moduleVersions;
        int listed;
    }

    private void commit(BundleContents contents, List<ReleaseChecks.CheckedRelease> checked, Added added)
            throws IOException {
        Map<ProviderAddress, Set<ProviderVersion>> carried = new LinkedHashMap<>();
        for (ReleaseChecks.CheckedRelease release : checked) {
            ProviderAddress address = release.address();
            ProviderVersion version = release.version();
            Map<Platform, String> h1 = new TreeMap<>();
            for (Platform platform : release.platforms()) {
                CacheKey key = CacheLayout.archive(address, version, platform);
                BundleContents.StagedArchive staged = contents.archives().get(key);
                added.archives += core.blobs().find(key).isEmpty() ? 1 : 0;
                staged.write().commit(staged.sha256());
                h1.put(platform, PackageHashes.h1(staged.write().openReader()));
                core.log()
                        .decisions()
                        .record(Decision.archiveCommitted(
                                address.toString(),
                                version.canonical(),
                                platform.toString(),
                                staged.sha256(),
                                h1.get(platform)));
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
            added.listed += merge(list, provider.getValue());
        }
    }

    /**
     * Commits each checked module version's archive, and its pin where the cache had none; then merges each module's
     * version list as {@link #merge} does providers'.
     */
    private void commitModules(BundleContents contents, List<ModuleChecks.CheckedModule> modules, Added added)
            throws IOException {
        Map<ModuleAddress, Set<ProviderVersion>> carried = new LinkedHashMap<>();
        for (ModuleChecks.CheckedModule module : modules) {
            CacheKey key = CacheLayout.moduleArchive(
                    module.address(), module.version(), module.pin().archiveType());
            BundleContents.StagedArchive staged = contents.archives().get(key);
            added.moduleVersions +=
                    !module.pinnedAlready() || core.blobs().find(key).isEmpty() ? 1 : 0;
            staged.write().commit(staged.sha256());
            if (!module.pinnedAlready()) {
                cache.writeModulePin(module.address(), module.version(), module.pin());
                ModulePin pin = module.pin();
                core.log()
                        .decisions()
                        .record(Decision.modulePinned(
                                module.address().toString(),
                                module.version().canonical(),
                                pin.kind(),
                                pin.sha256(),
                                pin.commitId(),
                                pin.source()));
            }
            carried.computeIfAbsent(module.address(), a -> new HashSet<>()).add(module.version());
        }
        CacheDocuments bundled = new CacheDocuments(contents.documents());
        for (Map.Entry<ModuleAddress, Set<ProviderVersion>> module : carried.entrySet()) {
            List<ProviderVersion> listed =
                    bundled.moduleVersionList(module.getKey()).orElseThrow().value();
            added.listed += mergeModule(module.getKey(), listed, module.getValue());
        }
    }

    /**
     * As {@link #merge}, for a module: the versions the cache lists already, unchanged and in their order, then the
     * bundle's {@code carried} versions it does not list yet.
     *
     * @return how many versions the cache's list gained
     */
    private int mergeModule(ModuleAddress address, List<ProviderVersion> bundled, Set<ProviderVersion> carried)
            throws IOException {
        List<ProviderVersion> all = new ArrayList<>();
        try {
            cache.moduleVersionList(address).ifPresent(cached -> all.addAll(cached.value()));
        } catch (CacheDocuments.Unreadable unreadable) {
            // The bundle's list replaces an unreadable one; a cache that cannot be read at all stops the import.
        }
        int before = all.size();
        bundled.stream()
                .filter(carried::contains)
                .filter(version -> !all.contains(version))
                .forEach(all::add);
        if (all.size() > before) {
            cache.writeModuleVersionList(address, all);
        }
        return all.size() - before;
    }

    /**
     * Writes the versions the cache lists already, unchanged, joined by the bundle's {@code carried} versions (those
     * whose releases the bundle holds and that verified) that the cache does not list yet, when there are such: an
     * import only adds.
     *
     * @return how many versions the cache's list gained
     */
    private int merge(VersionList bundled, Set<ProviderVersion> carried) throws IOException {
        Map<ProviderVersion, ListedVersion> all = new TreeMap<>();
        try {
            cache.versionList(bundled.address())
                    .ifPresent(cached -> all.putAll(cached.value().versions()));
        } catch (CacheDocuments.Unreadable unreadable) {
            // The bundle's list replaces an unreadable one; a cache that cannot be read at all stops the import.
        }
        int before = all.size();
        bundled.versions().keySet().stream()
                .filter(carried::contains)
                .forEach(version -> all.putIfAbsent(version, bundled.versions().get(version)));
        if (all.size() > before) {
            cache.writeVersionList(new VersionList(bundled.address(), all));
        }
        return all.size() - before;
    }
}
