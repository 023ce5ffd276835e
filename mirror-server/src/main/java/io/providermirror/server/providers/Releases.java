package io.providermirror.server.providers;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.OriginRules;
import io.providermirror.server.core.Origins;
import io.providermirror.server.core.ProviderPolicy;
import io.providermirror.server.core.PulledAnswers;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.tlog.DecisionLog;
import io.providermirror.upstream.HostLanes;
import io.providermirror.upstream.ListedVersion;
import io.providermirror.upstream.Origin;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.ReleaseEvidence;
import io.providermirror.upstream.ReleaseVerifier;
import io.providermirror.upstream.verify.VerificationException;
import io.providermirror.upstream.verify.VerifiedPackage;
import io.providermirror.upstream.verify.VerifiedRelease;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
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
 * kept as {@code release.json}, its evidence, and served as its rendered version document. Held by
 * {@link PulledAnswers} (one load however many callers, never stale), as version lists are.
 */
public final class Releases {

    private static final Logger LOG = LoggerFactory.getLogger(Releases.class);

    /**
     * A verified release with the {@code h1:} hashes known so far and its rendered version document;
     * {@code signedAt} when the origin signed its SHA256SUMS, if it did.
     */
    public record Entry(
            VerifiedRelease release, Map<Platform, String> h1, RenderedDocument document, Optional<Instant> signedAt) {
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
    private final PulledAnswers<Key, Entry> entries;
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
            HostLanes lanes,
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
        this.entries = PulledAnswers.builder(new Verified(), executor, clock, Duration.ZERO)
                .immutable()
                .pulledPerHost(lanes, key -> key.address().hostname())
                .weighing(Entry::estimatedBytes, settings.metadataMemoryBytes() / 8 * 3)
                .onLoadFailure((key, failure) -> OriginFailures.log(LOG, key.address() + " " + key.version(), failure))
                .counting(metrics, MirrorMetrics.LookupKind.VERSION)
                .monitored(metrics, "releases")
                .build();
        hashes.addListener(this::hashesChanged);
    }

    /**
     * The verified release; fetched and verified only when it is in neither memory nor the cache directory. A
     * client's request is counted as a cache hit or miss.
     */
    CompletableFuture<Entry> get(ProviderAddress address, ProviderVersion version, Requester requester) {
        Key key = new Key(address, version);
        return (requester == Requester.MIRROR ? entries.getUncounted(key) : entries.get(key))
                .thenApply(PulledAnswers.Pulled::value);
    }

    /**
     * Where verified releases come from: the cache directory, verified again; else the origin's documents for the
     * version its list names, verified. Never refreshed: a verified release does not change.
     */
    private final class Verified implements PulledAnswers.Source<Key, Entry> {

        @Override
        public Optional<PulledAnswers.Pulled<Entry>> stored(Key key) {
            return loadFromDisk(key).map(entry -> new PulledAnswers.Pulled<>(entry, clock.instant()));
        }

        @Override
        public CompletableFuture<Entry> pulling(Key key, Executor executor) {
            // The version list is another answer: waited for without holding an executor thread.
            return lists.dated(key.address(), Requester.MIRROR)
                    .thenApplyAsync(index -> fetch(key, listed(key, index)), executor);
        }

        @Override
        public Entry pull(Key key) {
            return pulling(key, Runnable::run).join();
        }
    }

    private static ListedVersion listed(Key key, PulledAnswers.Pulled<VersionLists.Entry> index) {
        return index.value()
                .list()
                .find(key.version())
                .orElseThrow(() -> new OriginException(
                        OriginException.Reason.NOT_FOUND,
                        "version " + key.version() + " of " + key.address() + " is not listed by its origin (as of "
                                + index.fetchedAt() + ")"));
    }

    /** Forgets the verified release memory holds of {@code version}: after a purge, the cache directory answers. */
    void forget(ProviderAddress address, ProviderVersion version) {
        entries.forget(new Key(address, version));
    }

    /** Forgets every verified release memory holds of {@code address}. */
    void forget(ProviderAddress address) {
        entries.forgetIf(key -> key.address().equals(address));
    }

    /** Shows the {@code h1:} hashes just recorded in the release's version document, if it is in memory. */
    private void hashesChanged(ProviderAddress address, ProviderVersion version, Map<Platform, String> known) {
        entries.replaceIfPresent(
                new Key(address, version), current -> entry(current.release(), known, current.signedAt()));
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
        Optional<Entry> entry = entries.inMemory(key).or(() -> verifyStored(key, evidence.get()));
        return entry.map(e -> new Stored(e.release(), e.h1(), evidence.get().storedAt()));
    }

    /**
     * Puts the verified release of {@code version} that the cache directory holds in memory, read and verified again
     * as a request's first read after a restart would; completes with whether memory holds it then. Never asks an
     * origin: a version the cache does not hold, or whose evidence no longer verifies, is left to the request.
     */
    CompletableFuture<Boolean> loadStored(ProviderAddress address, ProviderVersion version) {
        return entries.loadStored(new Key(address, version));
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
                    release, hashes.read(key.address(), key.version()), ReleaseVerifier.signedAt(evidence.value())));
        } catch (OriginException | VerificationException | IllegalArgumentException e) {
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
        return entry(release, hashes.read(address, key.version()), ReleaseVerifier.signedAt(evidence));
    }

    /** An entry whose version document is rendered once, with bare archive URLs. */
    private Entry entry(VerifiedRelease release, Map<Platform, String> h1, Optional<Instant> signedAt) {
        return new Entry(release, Map.copyOf(h1), render(release, h1, platform -> null), signedAt);
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
