package io.providermirror.server.face.modules;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.DocumentStore;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.ArchiveSource;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.server.core.CachedArchives;
import io.providermirror.server.core.EngineServices;
import io.providermirror.server.core.Futures;
import io.providermirror.server.core.ModuleOrigins;
import io.providermirror.server.core.ModulePin;
import io.providermirror.server.core.OriginRules;
import io.providermirror.server.core.PolicyDeniedException;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.ModuleRegistryClient;
import io.providermirror.upstream.ModuleSource;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.git.GitSource;
import io.providermirror.upstream.verify.ArchiveLimits;
import io.providermirror.upstream.verify.ArchiveType;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Registry modules through the mirror, as plain Java: a module's versions (pulled through and cached like
 * providers' version lists), a version's download (answered from the mirror's own archive of it, so a client needs
 * neither git nor the original source) and that archive, fetched once and pinned. Failures complete the futures
 * with an {@link OriginException} whose message names the module and its origin.
 */
public final class ModuleMirror {

    /**
     * Tunables of modules through the mirror: how long a version list is fresh, how long a caller waits for versions
     * or a download's source and an archive request for its fetch, whether sources the mirror cannot fetch are handed
     * to clients unchanged, offline (the cache only), the bounds on what an archive (or a git tree) unpacks to, and
     * where git clones are made, then deleted.
     */
    public record Settings(
            Duration indexTtl,
            Duration metadataTimeout,
            Duration archiveTimeout,
            boolean passthroughUnsupported,
            boolean offline,
            ArchiveLimits unpacked,
            Path workDirectory) {}

    private final Settings settings;
    private final ModuleVersions versions;
    /** Each version's source, asked of its origin once however many callers wait, on its host's lane. */
    private final ResolvedSources sources;

    private final ModuleFills fills;
    private final CacheDocuments documents;
    private final BlobStore blobs;
    private final ModulePolicy policy;
    private final OriginRules rules;
    private final Executor executor;
    /** Committed archives, answered from the cache; a store that cannot open one fails as the origin would. */
    private final CachedArchives archives;

    private final ModuleVersionAnswers versionAnswers;
    private final ModuleCatalog catalog;
    /** The download answers that came from pins (not being accepted), so a warm download reads no file. */
    private final PinnedDownloads pinnedDownloads;

    /**
     * @param engine what every path shares; its fills fetch archives and git trees, under the same places and bounds
     *     as provider archives
     */
    public ModuleMirror(
            Settings settings, EngineServices engine, ModuleOrigins origins, GitSource git, ModulePolicy policy) {
        DocumentStore documentStore = engine.documents();
        Executor executor = engine.executor();
        Clock clock = engine.clock();
        MirrorMetrics metrics = engine.metrics();
        OriginRules rules = engine.rules();
        this.settings = settings;
        this.documents = new CacheDocuments(documentStore);
        this.sources = new ResolvedSources(origins, settings.offline(), executor, engine.lanes(), clock);
        this.versions = new ModuleVersions(
                origins, documents, executor, engine.lanes(), clock, settings.indexTtl(), settings.offline(), metrics);
        this.fills = new ModuleFills(
                new ModuleFills.Settings(settings.unpacked(), settings.workDirectory()),
                git,
                origins,
                engine.fills(),
                documents,
                clock,
                metrics,
                engine.decisions());
        this.blobs = engine.blobs();
        this.policy = policy;
        this.rules = rules;
        this.executor = executor;
        this.archives = new CachedArchives(blobs, executor, metrics, MirrorMetrics.LookupKind.MODULE_ARCHIVE);
        this.versionAnswers = new ModuleVersionAnswers(
                policy, (a, v) -> catalog().publishedAt(a, v), this::listed, versions::inMemory, executor, clock);
        this.catalog = new ModuleCatalog(
                settings, this, versionAnswers, origins, documentStore, policy, rules, executor, engine.lanes(), clock);
        this.pinnedDownloads = new PinnedDownloads(documents, executor, clock, settings.indexTtl());
    }

    /**
     * The {@code versions} answer of the module registry protocol: every version the policy lets in, rendered once
     * per version list (the policy does not change while the mirror runs) and then served as the same bytes.
     */
    public CompletableFuture<RenderedDocument> versions(ModuleAddress address) {
        return versionAnswers.fromList(listed(address), executor, entry -> versionAnswers.rendered(address, entry));
    }

    /** The versions of {@code address} that {@link #versions} lists, in the origin's order. */
    public CompletableFuture<List<ProviderVersion>> allowedVersions(ModuleAddress address) {
        return versionAnswers.fromList(listed(address), executor, entry -> versionAnswers.allowed(address, entry));
    }

    /** What {@link #versions} of every module of {@code hostname} fails with before its origin is asked, if any. */
    public Optional<RuntimeException> hostRefusal(String hostname) {
        return rules.hostRefusal(hostname)
                .map(reason -> "refused to fetch modules of " + hostname + ": " + reason)
                .or(() -> policy.refusal(hostname))
                .map(ModuleMirror::forbidden);
    }

    private CompletableFuture<ModuleVersions.Entry> listed(ModuleAddress address) {
        Optional<String> refused = refusalOf(address, null);
        if (refused.isPresent()) {
            return CompletableFuture.failedFuture(forbidden(refused.get()));
        }
        return Futures.withinDeadline(
                versions.get(address),
                () -> "the version list of module " + address,
                address::hostname,
                settings.metadataTimeout());
    }

    /**
     * What the {@code download} answer of a version says: from its pin when the mirror fetched it before (no
     * origin request), else from the origin's source, whose fetch then starts (the archive request follows it).
     */
    public CompletableFuture<ModuleDownload> download(ModuleAddress address, ProviderVersion version) {
        Optional<String> refused = refusalOf(address, version);
        if (refused.isPresent()) {
            return CompletableFuture.failedFuture(forbidden(refused.get()));
        }
        return versionAnswers.cleared(address, version).thenCompose(old -> allowedDownload(address, version));
    }

    private CompletableFuture<ModuleDownload> allowedDownload(ModuleAddress address, ProviderVersion version) {
        Optional<ModuleDownload> known = pinnedDownloads.inMemory(address, version);
        if (known.isPresent()) {
            // Hot path, on the caller's (event loop) thread: what the pin says never changes while it holds.
            return CompletableFuture.completedFuture(known.get());
        }
        CompletableFuture<ModuleDownload> answer = pinnedDownloads
                .read(address, version)
                // Only the origin's part waits on its host's lane: a pinned version is answered whatever its origin
                // does.
                .thenCompose(pinned -> pinned.isPresent()
                        ? CompletableFuture.completedFuture(pinned.get())
                        : sources.of(address, version)
                                .thenApplyAsync(resolved -> fromOrigin(address, version, resolved), executor));
        return Futures.withinDeadline(
                answer,
                () -> "the download of version " + version + " of module " + address,
                address::hostname,
                settings.metadataTimeout());
    }

    /** The download answer of a version without a pin, from its {@code resolved} source, whose fetch starts. */
    private ModuleDownload fromOrigin(
            ModuleAddress address, ProviderVersion version, ModuleRegistryClient.ResolvedSource resolved) {
        ModuleSource source = resolved.source();
        if (source.kind() == ModuleSource.Kind.UNSUPPORTED) {
            if (settings.passthroughUnsupported()) {
                return ModuleDownload.passthrough(resolved.location());
            }
            throw new OriginException(
                    OriginException.Reason.BAD_RESPONSE,
                    "module " + address + " " + version + ": the mirror cannot fetch its source " + source
                            + ": " + source.reason() + " (modules.passthroughUnsupported hands such "
                            + "sources to clients unchanged)");
        }
        fills.fill(address, version, source);
        return ModuleDownload.onMirror(ModuleFills.typeOf(source), source.subdirectory(), false);
    }

    /**
     * The archive of a version that {@link #download} pointed at ({@code extension} as in its name): from the
     * cache, else following its fetch (starting one if none runs: the archive was evicted, or the mirror restarted).
     */
    public CompletableFuture<ArchiveSource> archive(ModuleAddress address, ProviderVersion version, String extension) {
        Optional<String> refused = refusalOf(address, version);
        if (refused.isPresent()) {
            return CompletableFuture.failedFuture(forbidden(refused.get()));
        }
        return versionAnswers.cleared(address, version).thenCompose(old -> allowedArchive(address, version, extension));
    }

    private CompletableFuture<ArchiveSource> allowedArchive(
            ModuleAddress address, ProviderVersion version, String extension) {
        CacheKey key = CacheLayout.moduleArchive(address, version, extension);
        CompletableFuture<ArchiveSource> answer = archives.get(
                key,
                () -> fetching(key, address, version, extension)
                        .thenApplyAsync(
                                done -> archives.open(key)
                                        .orElseThrow(() -> new OriginException(
                                                OriginException.Reason.UNAVAILABLE,
                                                "the archive of module " + address + " " + version
                                                        + " vanished from the cache as it was committed")),
                                executor));
        return Futures.ownedWithinDeadline(
                answer,
                () -> "the archive of version " + version + " of module " + address,
                address::hostname,
                settings.archiveTimeout());
    }

    /** The fetch of the archive {@code key}: the one running, else a new one. */
    private CompletableFuture<Void> fetching(
            CacheKey key, ModuleAddress address, ProviderVersion version, String extension) {
        Optional<CompletableFuture<Void>> running = fills.running(key);
        if (running.isPresent()) {
            return running.get();
        }
        return sources.of(address, version)
                .thenComposeAsync(
                        resolved -> {
                            ModuleSource source = resolved.source();
                            String named = source.kind() == ModuleSource.Kind.UNSUPPORTED
                                    ? extension
                                    : ModuleFills.typeOf(source).extension();
                            if (!named.equals(extension)) {
                                throw new OriginException(
                                        OriginException.Reason.NOT_FOUND,
                                        "module " + address + " " + version + " has no ." + extension
                                                + " archive (its download names ." + named + ")");
                            }
                            return fills.fill(address, version, source);
                        },
                        executor);
    }

    /** Why the mirror would never serve {@code version} of {@code address} (refused host, policy): for import. */
    public Optional<String> refusal(ModuleAddress address, ProviderVersion version) {
        return refusalOf(address, version);
    }

    /**
     * Why an archive of module content (of type {@code extension}) must not be kept, under the same limits as
     * archives fetched from origins: what {@code import} checks a bundled archive with.
     */
    public Optional<String> archiveProblem(java.nio.channels.SeekableByteChannel archive, String extension)
            throws IOException {
        return io.providermirror.upstream.verify.ModuleArchiveCheck.problem(
                archive, ModuleFills.archiveType(extension), settings.unpacked());
    }

    /** The pin of a version, if the mirror ever fetched it. Blocking. */
    public Optional<ModulePin> pin(ModuleAddress address, ProviderVersion version) {
        return readPin(address, version);
    }

    /** Every module version whose archive the cache holds, with its pin. Blocking. */
    public List<StoredModule> storedModules() {
        return StoredModules.list(blobs, this::readPin);
    }

    /** The full module registry API beside the protocol: lists, search, latest versions and details. */
    public ModuleCatalog catalog() {
        return catalog;
    }

    /**
     * Lets the next fetch of a pinned version replace its pin: what an operator does after checking that the
     * source changed on purpose. The cached archive is dropped, so the next request fetches the new content.
     *
     * @throws IllegalArgumentException when the version was never pinned
     */
    public ModulePin acceptNewContent(ModuleAddress address, ProviderVersion version) throws IOException {
        ModulePin pin = documents
                .modulePin(address, version)
                .orElseThrow(() -> new IllegalArgumentException("module " + address + " " + version
                        + " has no pin in this cache: nothing to accept (the next fetch pins what it finds)"));
        documents.writeModulePin(address, version, pin.accepted());
        blobs.remove(CacheLayout.moduleArchive(address, version, pin.archiveType()));
        forget(address, version);
        return pin;
    }

    /** Forgets the version list memory holds for {@code address}: after an import beside the running mirror. */
    public void forgetVersionList(ModuleAddress address) {
        versions.forget(address);
    }

    /**
     * Forgets what memory holds of a version (its download answer, a failure of its archive whatever the archive's
     * type): after a purge, made here or by another instance of a fleet, which no longer knows the purged pin's type.
     */
    public void forget(ModuleAddress address, ProviderVersion version) {
        pinnedDownloads.forget(address, version);
        List<String> pin = CacheLayout.modulePin(address, version).segments();
        fills.forgetFailuresUnder(pin.subList(0, pin.size() - 1));
        versions.forget(address);
    }

    private Optional<ModulePin> readPin(ModuleAddress address, ProviderVersion version) {
        try {
            return documents.modulePin(address, version);
        } catch (IOException e) {
            throw new OriginException(OriginException.Reason.UNAVAILABLE, e.getMessage(), e);
        }
    }

    private Optional<String> refusalOf(ModuleAddress address, ProviderVersion version) {
        Optional<String> host = rules.hostRefusal(address.hostname());
        if (host.isPresent()) {
            return host.map(reason -> "refused to fetch module " + address + ": " + reason);
        }
        return version == null ? policy.refusal(address) : policy.refusal(address, version);
    }

    private static RuntimeException forbidden(String reason) {
        return reason.startsWith("refused to fetch")
                ? new OriginException(OriginException.Reason.FORBIDDEN, reason)
                : new PolicyDeniedException(reason);
    }

    /** The archive type of an extension, as pins and archive names write it. */
    public static ArchiveType archiveType(String extension) {
        return ModuleFills.archiveType(extension);
    }
}
