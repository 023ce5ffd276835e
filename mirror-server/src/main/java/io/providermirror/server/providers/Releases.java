package io.providermirror.server.providers;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.OriginRules;
import io.providermirror.server.core.Origins;
import io.providermirror.server.core.ProviderPolicy;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.tlog.DecisionLog;
import io.providermirror.upstream.ListedVersion;
import io.providermirror.upstream.Origin;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.ReleaseEvidence;
import io.providermirror.upstream.ReleaseVerifier;
import io.providermirror.upstream.VerificationException;
import io.providermirror.upstream.VerifiedPackage;
import io.providermirror.upstream.VerifiedRelease;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verified provider versions and their rendered version documents. A version is fetched and verified once
 * (every platform's download document, SHA256SUMS and its signature), its evidence persisted, and from then
 * on it is immutable; only the {@code h1:} hashes ({@link KnownHashes}) grow as archives are verified. Each is
 * kept as {@code release.json}, its evidence, and served as its rendered version document.
 */
public final class Releases {

    private static final Logger LOG = LoggerFactory.getLogger(Releases.class);

    /**
     * A verified release with the {@code h1:} hashes known so far and its rendered version document;
     * {@code fromOrigin} when it was fetched and verified (rather than read from disk) as it entered memory;
     * {@code signedAt} when the origin signed its SHA256SUMS, if it did.
     */
    public record Entry(
            VerifiedRelease release,
            Map<Platform, String> h1,
            RenderedDocument document,
            boolean fromOrigin,
            Optional<Instant> signedAt) {
        /** Roughly the heap this entry holds: the rendered bytes plus each platform's verified package. */
        int estimatedBytes() {
            return 256 + document.json().length + 600 * release.packages().size() + 150 * h1.size();
        }
    }

    private record Key(ProviderAddress address, ProviderVersion version) {}

    private final VersionLists lists;
    private final Origins origins;
    private final CacheDocuments documents;
    private final KnownHashes hashes;
    private final Executor executor;
    private final AsyncCache<Key, Entry> entries;
    private final MirrorMetrics metrics;
    private final ProviderPolicy policy;
    private final OriginRules rules;
    private final Clock clock;
    private final DecisionLog decisions;

    /** Takes three eighths of {@code settings.metadataMemoryBytes()}, as {@link VersionLists} does. */
    Releases(
            ProviderMirror.Settings settings,
            VersionLists lists,
            Origins origins,
            CacheDocuments documents,
            KnownHashes hashes,
            Executor executor,
            Clock clock,
            MirrorMetrics metrics,
            ProviderPolicy policy,
            OriginRules rules,
            DecisionLog decisions) {
        this.decisions = decisions;
        this.clock = clock;
        this.metrics = metrics;
        this.policy = policy;
        this.rules = rules;
        this.lists = lists;
        this.origins = origins;
        this.documents = documents;
        this.hashes = hashes;
        this.executor = executor;
        this.entries = Caffeine.newBuilder()
                .maximumWeight(settings.metadataMemoryBytes() / 8 * 3)
                .weigher((Key key, Entry entry) -> entry.estimatedBytes())
                // Maintenance (weighing, evicting) is cheap and runs where a value completes, so an entry over
                // the memory budget is gone before the next request can find it.
                .executor(Runnable::run)
                .recordStats()
                .buildAsync();
        metrics.monitor(entries, "releases");
        hashes.addListener(this::hashesChanged);
    }

    /**
     * The verified release; fetched and verified only when it is in neither memory nor the cache directory. A
     * client's request is counted as a cache hit or miss.
     */
    CompletableFuture<Entry> get(ProviderAddress address, ProviderVersion version, Requester requester) {
        if (requester == Requester.MIRROR) {
            return cachedOrLoaded(address, version);
        }
        CompletableFuture<Entry> present = entries.getIfPresent(new Key(address, version));
        if (present != null && present.isDone() && !present.isCompletedExceptionally()) {
            metrics.cacheLookup(MirrorMetrics.LookupKind.VERSION, MirrorMetrics.LookupResult.HIT);
            return present;
        }
        return cachedOrLoaded(address, version)
                .whenComplete((entry, failure) -> metrics.cacheLookup(
                        MirrorMetrics.LookupKind.VERSION,
                        failure != null || entry.fromOrigin()
                                ? MirrorMetrics.LookupResult.MISS
                                : MirrorMetrics.LookupResult.HIT));
    }

    private CompletableFuture<Entry> cachedOrLoaded(ProviderAddress address, ProviderVersion version) {
        // Everything, the disk read included, runs on the executor: callers may be event-loop threads.
        return entries.get(
                new Key(address, version),
                (key, ignored) -> CompletableFuture.supplyAsync(() -> loadFromDisk(key), executor)
                        .thenCompose(stored -> stored.map(CompletableFuture::completedFuture)
                                .orElseGet(() -> lists.get(address, Requester.MIRROR)
                                        .thenApplyAsync(
                                                index -> {
                                                    ListedVersion listed = index.list()
                                                            .find(version)
                                                            .orElseThrow(() -> new OriginException(
                                                                    OriginException.Reason.NOT_FOUND,
                                                                    "version " + version + " of " + address
                                                                            + " is not listed by its origin (as of "
                                                                            + index.fetchedAt() + ")"));
                                                    return fetch(key, listed);
                                                },
                                                executor)))
                        .whenComplete((entry, failure) -> OriginFailures.log(LOG, address + " " + version, failure)));
    }

    /** Shows the {@code h1:} hashes just recorded in the release's version document, if it is in memory. */
    private void hashesChanged(ProviderAddress address, ProviderVersion version, Map<Platform, String> known) {
        Key key = new Key(address, version);
        CompletableFuture<Entry> current = entries.getIfPresent(key);
        if (current != null && current.isDone() && !current.isCompletedExceptionally()) {
            entries.put(
                    key,
                    CompletableFuture.completedFuture(entry(
                            current.join().release(),
                            known,
                            false,
                            current.join().signedAt())));
        }
    }

    /** A verified release as the cache directory holds it, with its known {@code h1:} hashes and when it was verified. */
    public record Stored(VerifiedRelease release, Map<Platform, String> h1, java.time.Instant verifiedAt) {}

    /**
     * The verified release of {@code version} if the cache directory holds one, checked again as on a restart;
     * never asks an origin. Blocking: reads the cache directory.
     */
    Optional<Stored> stored(ProviderAddress address, ProviderVersion version) {
        Key key = new Key(address, version);
        Optional<CacheDocuments.Dated<ReleaseEvidence>> evidence = readEvidence(key);
        if (evidence.isEmpty()) {
            return Optional.empty();
        }
        CompletableFuture<Entry> current = entries.getIfPresent(key);
        Optional<Entry> entry = current != null && current.isDone() && !current.isCompletedExceptionally()
                ? Optional.of(current.join())
                : verifyStored(key, evidence.get());
        return entry.map(e -> new Stored(e.release(), e.h1(), evidence.get().storedAt()));
    }

    private Optional<Entry> loadFromDisk(Key key) {
        return readEvidence(key).flatMap(evidence -> verifyStored(key, evidence));
    }

    /** The evidence the cache directory holds for {@code key}; none when there is none or it is unreadable. */
    private Optional<CacheDocuments.Dated<ReleaseEvidence>> readEvidence(Key key) {
        try {
            return documents.releaseEvidence(key.address(), key.version());
        } catch (CacheDocuments.Unreadable e) {
            LOG.warn(
                    "the cached release of {} {} does not verify ({}); fetching it again",
                    key.address(),
                    key.version(),
                    e.getCause().getMessage());
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read the cached release of " + key.address() + " " + key.version(), e);
        }
    }

    /**
     * Evidence read back from disk, verified again: nothing is trusted because it was on disk. Signatures are judged
     * as of when the evidence was stored (verified), never later than now: the network mirror protocol hands the CLI
     * no signature, the mirror vouches for what it verified then, and a signature that has expired since (its key
     * rotated, say) does not make a cached provider vanish.
     */
    private Optional<Entry> verifyStored(Key key, CacheDocuments.Dated<ReleaseEvidence> evidence) {
        Instant now = clock.instant();
        Instant verifiedAt = evidence.storedAt().isBefore(now) ? evidence.storedAt() : now;
        try {
            VerifiedRelease release = ReleaseVerifier.verify(
                    key.address(),
                    key.version(),
                    evidence.value(),
                    rules.signaturePolicy(key.address().hostname()),
                    verifiedAt);
            return Optional.of(entry(
                    release,
                    hashes.read(key.address(), key.version()),
                    false,
                    ReleaseVerifier.signedAt(evidence.value())));
        } catch (OriginException | IllegalArgumentException e) {
            LOG.warn(
                    "the cached release of {} {} does not verify ({}); fetching it again",
                    key.address(),
                    key.version(),
                    e.getMessage());
            return Optional.empty();
        }
    }

    private Entry fetch(Key key, ListedVersion listed) {
        ProviderAddress address = key.address();
        Origin origin = origins.of(address.hostname());
        ReleaseEvidence evidence = origin.release(address, listed);
        VerifiedRelease release;
        try {
            release = ReleaseVerifier.verify(
                    address, key.version(), evidence, rules.signaturePolicy(address.hostname()), clock.instant());
        } catch (VerificationException e) {
            LOG.error(
                    "refusing {} {} from {}: {} check failed: {}",
                    address,
                    key.version(),
                    origin.describe(),
                    e.check(),
                    e.getMessage());
            metrics.verificationFailure(
                    address.hostname(), e.check().name(), address + " " + key.version(), e.getMessage());
            throw e;
        }
        if (release.packages().values().stream().anyMatch(VerifiedPackage::unsigned)) {
            LOG.warn(
                    "accepting {} {} from {} without a signature: its origin lists no signing keys, and the policy of "
                            + "{} allows that (SHA256SUMS was checked)",
                    address,
                    key.version(),
                    origin.describe(),
                    address.hostname());
            metrics.unsignedRelease(address.hostname());
        }
        decisions.record(ReleaseDecisions.verified(release, evidence));
        try {
            documents.writeReleaseEvidence(address, key.version(), evidence);
        } catch (IOException e) {
            LOG.warn("cannot store the release of {} {}: {}", address, key.version(), e.toString());
        }
        return entry(release, hashes.read(address, key.version()), true, ReleaseVerifier.signedAt(evidence));
    }

    /** An entry whose version document is rendered once, with bare archive URLs. */
    private Entry entry(
            VerifiedRelease release, Map<Platform, String> h1, boolean fromOrigin, Optional<Instant> signedAt) {
        return new Entry(release, Map.copyOf(h1), render(release, h1, platform -> null), fromOrigin, signedAt);
    }

    /**
     * The version document of {@code entry} with a query (such as a signature) appended to each archive URL,
     * rendered for one response.
     */
    RenderedDocument render(Entry entry, Function<Platform, String> query) {
        return render(entry.release(), entry.h1(), query);
    }

    /** The version document: the platforms the policy lets in, each with its archive's file name and hashes. */
    private RenderedDocument render(
            VerifiedRelease release, Map<Platform, String> h1, Function<Platform, String> query) {
        return VersionDocuments.render(release, h1, policy::allows, query);
    }
}
