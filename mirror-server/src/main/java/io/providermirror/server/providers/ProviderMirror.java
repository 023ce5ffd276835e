package io.providermirror.server.providers;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.core.ArchiveSource;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.EngineServices;
import io.providermirror.server.core.FillBounds;
import io.providermirror.server.core.Futures;
import io.providermirror.server.core.OriginFills;
import io.providermirror.server.core.OriginRules;
import io.providermirror.server.core.Origins;
import io.providermirror.server.core.PolicyDeniedException;
import io.providermirror.server.core.ProviderPolicy;
import io.providermirror.server.core.ReleaseAge;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.server.core.VersionSightings;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.tlog.DecisionLog;
import io.providermirror.upstream.OriginException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The pull-through mirror of providers as plain Java, which both provider faces answer from: version lists,
 * verified releases and archives, from the cache when it can, and from the origin (verified, then cached) when it
 * must. Failures complete the futures with an {@link io.providermirror.upstream.OriginException} whose reason says
 * what kind of failure it is and whose message names the provider and the origin.
 */
public final class ProviderMirror {

    /**
     * Tunables of the pull-through behaviour; {@code offline} serves the cache only; {@code metadataTimeout}
     * bounds how long a caller waits for a version list or version document, however many origin requests
     * it takes; {@code metadataMemoryBytes} bounds the heap that version lists, releases and the providers.v1 face's
     * published releases kept in memory
     * may hold (beyond it the least used are read back from disk when asked for); {@code fillBounds} bounds
     * archive downloads; {@code notFoundTtl} is how long an origin's "no such provider" is remembered.
     */
    public record Settings(
            Duration indexTtl,
            long maxArchiveBytes,
            boolean offline,
            Duration metadataTimeout,
            long metadataMemoryBytes,
            FillBounds fillBounds,
            Duration notFoundTtl) {
        public Settings {
            if (notFoundTtl.isNegative()) {
                throw new IllegalArgumentException("notFoundTtl: " + notFoundTtl + " (expected: >= 0)");
            }
            if (metadataMemoryBytes <= 0) {
                throw new IllegalArgumentException("metadataMemoryBytes: " + metadataMemoryBytes + " (expected: > 0)");
            }
            if (metadataTimeout.isZero() || metadataTimeout.isNegative()) {
                throw new IllegalArgumentException("metadataTimeout: " + metadataTimeout + " (expected: > 0)");
            }
        }
    }

    private final Duration metadataTimeout;
    private final boolean offline;
    private final ProviderPolicy policy;
    private final OriginRules rules;
    private final MirrorAuth auth;
    private final Origins origins;
    private final VersionLists lists;
    private final Releases releases;
    private final Archives archives;
    private final KnownHashes knownHashes;
    private final ReleaseAge releaseAge;
    private final Clock clock;

    /**
     * Fetches archives through the engine's {@link io.providermirror.server.core.OriginFills}, which module content shares: one set of places, leases and bounds for
     * everything the mirror fetches from origins.
     *
     * @param engine  the stores, fills, rules, executor, clock, meters and decisions every path shares
     * @param origins the origin of each host
     */
    public ProviderMirror(
            Settings settings,
            EngineServices engine,
            Origins origins,
            ProviderPolicy policy,
            MirrorAuth auth,
            ReleaseAge releaseAge) {
        Executor executor = engine.executor();
        Clock clock = engine.clock();
        MirrorMetrics metrics = engine.metrics();
        OriginRules rules = engine.rules();
        OriginFills fills = engine.fills();
        DecisionLog decisions = engine.decisions();
        this.policy = policy;
        this.releaseAge = releaseAge;
        this.clock = clock;
        this.rules = rules;
        this.auth = auth;
        this.metadataTimeout = settings.metadataTimeout();
        this.offline = settings.offline();
        this.origins = origins;
        CacheDocuments cacheDocuments = new CacheDocuments(engine.documents());
        this.knownHashes = new KnownHashes(cacheDocuments);
        this.lists = new VersionLists(
                settings,
                origins,
                cacheDocuments,
                executor,
                engine.lanes(),
                clock,
                metrics,
                policy,
                new RefreshLease(fills.leases()));
        this.releases = new Releases(
                settings,
                lists,
                origins,
                cacheDocuments,
                knownHashes,
                executor,
                engine.lanes(),
                clock,
                metrics,
                policy,
                rules,
                decisions);
        this.archives = new Archives(
                releases, lists, origins, knownHashes, engine.blobs(), fills, executor, metrics, decisions);
    }

    /** Whether clients need a token ({@code auth}). */
    public boolean accessControlled() {
        return auth.enabled();
    }

    /** Whether the mirror serves only what it holds and never contacts an origin ({@code upstream.offline}). */
    public boolean offline() {
        return offline;
    }

    /**
     * Why the mirror would never serve {@code version} of {@code address} (a refused host, an IP literal, another
     * port of a configured host, or the policy), if it would not; what {@code import} uses to take in nothing unreachable.
     */
    public Optional<String> refusal(ProviderAddress address, ProviderVersion version) {
        Optional<String> host = rules.hostRefusal(address.hostname());
        return host.isPresent() ? host : policy.refusal(address, version);
    }

    /**
     * Waits, at most {@code timeout}, for work that follows answers in the background (the {@code h1:} hashes of
     * archives just committed); true when none is left. Called before the mirror's threads are stopped.
     */
    public boolean awaitBackgroundWork(Duration timeout) throws InterruptedException {
        return archives.awaitBackgroundHashes(timeout);
    }

    /**
     * The versions of {@code address} that {@code index.json} lists, in its order, as a client's request would
     * have them (refused and counted alike): what {@code warm} and {@code export} use instead of parsing JSON.
     */
    public CompletableFuture<List<ProviderVersion>> allowedVersions(ProviderAddress address) {
        return allowedList(address)
                .thenApply(entry -> entry.list().versions().keySet().stream()
                        .filter(version -> policy.allows(address, version))
                        .toList());
    }

    /**
     * The version list of {@code address} as the faces answer it: a provider the policy refuses, or of which it
     * refuses every version, fails with a {@link PolicyDeniedException}; a refused host with {@code FORBIDDEN}.
     */
    public CompletableFuture<VersionLists.Entry> allowedList(ProviderAddress address) {
        Optional<CompletableFuture<VersionLists.Entry>> host = refusedHost(address);
        if (host.isPresent()) {
            return host.get();
        }
        Optional<String> refused = policy.refusal(address);
        if (refused.isPresent()) {
            return CompletableFuture.failedFuture(new PolicyDeniedException(refused.get()));
        }
        return withinDeadline(lists.get(address, Requester.CLIENT), address, "the version list")
                .thenApply(entry -> {
                    if (entry.allowedVersions() == 0 && !entry.list().versions().isEmpty()) {
                        throw new PolicyDeniedException("the policy refuses every version of " + address
                                + " its origin lists ("
                                + policy.refusal(
                                                address,
                                                entry.list()
                                                        .versions()
                                                        .keySet()
                                                        .iterator()
                                                        .next())
                                        .orElse("") + ")");
                    }
                    return offered(address, entry);
                });
    }

    /**
     * {@code entry} without the versions the release-age quarantine holds back now; refused, naming the hold of the
     * newest, when it holds back every version the policy lets in.
     */
    private VersionLists.Entry offered(ProviderAddress address, VersionLists.Entry entry) {
        if (!releaseAge.active()) {
            return entry;
        }
        VersionLists.Entry offered = lists.offered(
                entry, version -> releaseAge.offered(address.toString(), version, evidence(entry, version)));
        if (offered.allowedVersions() == 0 && entry.allowedVersions() > 0) {
            ProviderVersion newest = entry.list().versions().keySet().stream()
                    .filter(version -> policy.allows(address, version))
                    .max(ProviderVersion::compareTo)
                    .orElseThrow();
            throw new PolicyDeniedException("every version of " + address + " is held back: "
                    + releaseAge
                            .refusal(address.toString(), newest, evidence(entry, newest))
                            .orElse(""));
        }
        return offered;
    }

    private ReleaseAge.Evidence evidence(VersionLists.Entry entry, ProviderVersion version) {
        return evidence(entry, version, Optional.empty());
    }

    private ReleaseAge.Evidence evidence(
            VersionLists.Entry entry, ProviderVersion version, Optional<java.time.Instant> signedAt) {
        return VersionSightings.evidence(entry.sightings(), version, signedAt, clock);
    }

    /**
     * The verified release of {@code version} unless the release-age quarantine holds it back: judged by when the
     * mirror first saw it before anything is fetched, then again with when its origin signed it.
     */
    private CompletableFuture<Releases.Entry> agedRelease(ProviderAddress address, ProviderVersion version) {
        return withinDeadline(lists.get(address, Requester.CLIENT), address, "the version list")
                .thenCompose(list -> {
                    // Refused before anything is fetched when enforcing; a dry run judges (and counts) once, below.
                    Optional<String> held = releaseAge.dryRun()
                            ? Optional.empty()
                            : releaseAge.refusal(address.toString(), version, evidence(list, version));
                    if (held.isPresent()) {
                        return CompletableFuture.failedFuture(new PolicyDeniedException(held.get()));
                    }
                    return withinDeadline(
                                    releases.get(address, version, Requester.CLIENT), address, "version " + version)
                            .thenApply(release -> {
                                release.signedAt().ifPresent(at -> lists.recordSigned(address, version, at));
                                if (release.signedAt().isPresent() || releaseAge.dryRun()) {
                                    Optional<String> signed = releaseAge.refusal(
                                            address.toString(), version, evidence(list, version, release.signedAt()));
                                    if (signed.isPresent()) {
                                        throw new PolicyDeniedException(signed.get());
                                    }
                                }
                                return release;
                            });
                });
    }

    /**
     * The version document of {@code entry} with each archive URL followed by {@code query}'s answer for its
     * platform, rendered for one response (signed archive URLs expire).
     */
    public RenderedDocument render(Releases.Entry entry, Function<Platform, String> query) {
        return releases.render(entry, query);
    }

    /**
     * The verified release whose version document a client would get, with the platforms that document lists
     * and the {@code h1:} hashes known (refused and counted alike): what {@code warm} and {@code export} use
     * instead of parsing JSON.
     */
    public CompletableFuture<ServedRelease> release(ProviderAddress address, ProviderVersion version) {
        return allowedRelease(address, version)
                .thenApply(entry -> new ServedRelease(
                        entry.release(),
                        entry.release().packages().keySet().stream()
                                .filter(policy::allows)
                                .collect(Collectors.toCollection(TreeSet::new)),
                        entry.h1()));
    }

    /** The verified release of {@code version}, refused and bounded in time as {@link #allowedList} is. */
    public CompletableFuture<Releases.Entry> allowedRelease(ProviderAddress address, ProviderVersion version) {
        Optional<CompletableFuture<Releases.Entry>> host = refusedHost(address);
        if (host.isPresent()) {
            return host.get();
        }
        Optional<String> refused = policy.refusal(address, version);
        if (refused.isPresent()) {
            return CompletableFuture.failedFuture(new PolicyDeniedException(refused.get()));
        }
        if (releaseAge.active()) {
            return agedRelease(address, version);
        }
        return withinDeadline(releases.get(address, version, Requester.CLIENT), address, "version " + version);
    }

    /**
     * The {@code h1:} hashes of verified archives: what {@code import} records the hashes of the archives it
     * takes in with, so that the version documents in memory list them too.
     */
    /**
     * Forgets what memory holds of {@code address}'s version list (and a remembered "not found"), so the next request
     * reads the cache again: after an import wrote to it beside the running mirror.
     */
    public void forgetVersionList(ProviderAddress address) {
        lists.forget(address);
    }

    /**
     * Forgets what memory holds of {@code version} (its verified release, a remembered refusal of any of its archives,
     * committed or not) and of the version list: after a purge, the next request reads the cache, else the origin.
     */
    public void forget(ProviderAddress address, ProviderVersion version) {
        releases.forget(address, version);
        archives.forgetFailures(address, Optional.of(version));
        lists.forget(address);
    }

    /**
     * Forgets what memory holds of every version of {@code address} (their releases, remembered refusals of their
     * archives) and of its version list: after a purge.
     */
    public void forget(ProviderAddress address) {
        releases.forget(address);
        archives.forgetFailures(address, Optional.empty());
        lists.forget(address);
    }

    public KnownHashes knownHashes() {
        return knownHashes;
    }

    /**
     * The verified release of {@code version} that the cache directory holds, for the status page; never asks an
     * origin. Blocking: call it off the event loop.
     */
    public Optional<Releases.Stored> storedRelease(ProviderAddress address, ProviderVersion version) {
        return releases.stored(address, version);
    }

    /**
     * Puts the verified release of {@code version} that the cache directory holds in memory, read and verified as a
     * request's first read of it would, for the warm-up after start-up; completes with whether memory holds it then.
     * Never asks an origin; serves nothing by itself (a request is still refused or held back as ever).
     */
    public CompletableFuture<Boolean> loadCachedRelease(ProviderAddress address, ProviderVersion version) {
        return releases.loadStored(address, version);
    }

    /** A 403 for a hostname the mirror does not contact unless configured (an IP address, a port alias). */
    private <T> Optional<CompletableFuture<T>> refusedHost(ProviderAddress address) {
        return rules.hostRefusal(address.hostname())
                .map(reason -> CompletableFuture.failedFuture(new OriginException(
                        OriginException.Reason.FORBIDDEN, "refused to fetch " + address + ": " + reason)));
    }

    /**
     * The caller's view of {@code work}, failed with a {@code TIMEOUT} naming the origin when it takes longer
     * than {@code metadataTimeout}. The work itself goes on and is cached, so a retry soon after (the CLI
     * retries once) finds it done or joins it.
     */
    private <T> CompletableFuture<T> withinDeadline(CompletableFuture<T> work, ProviderAddress address, String what) {
        return Futures.withinDeadline(
                work,
                () -> what + " of " + address,
                () -> address.hostname() + " (" + origins.of(address.hostname()).describe() + ")",
                metadataTimeout);
    }

    /** The archive, unless the policy refuses it: from disk when cached, else following its fill from the origin. */
    public CompletableFuture<ArchiveSource> archive(
            ProviderAddress address, ProviderVersion version, Platform platform) {
        Optional<CompletableFuture<ArchiveSource>> host = refusedHost(address);
        if (host.isPresent()) {
            return host.get();
        }
        Optional<String> refused = policy.refusal(address, version).or(() -> policy.refusal(platform));
        if (refused.isPresent()) {
            return CompletableFuture.failedFuture(new PolicyDeniedException(refused.get()));
        }
        if (releaseAge.active()) {
            return agedRelease(address, version).thenCompose(release -> archives.get(address, version, platform));
        }
        return archives.get(address, version, platform);
    }
}
