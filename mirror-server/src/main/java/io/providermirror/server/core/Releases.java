package io.providermirror.server.core;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.StoredDocument;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.ListedVersion;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.PackageHashes;
import io.providermirror.upstream.ParentMirrorClient;
import io.providermirror.upstream.RegistryClient;
import io.providermirror.upstream.ReleaseEvidence;
import io.providermirror.upstream.ReleaseVerifier;
import io.providermirror.upstream.VerificationException;
import io.providermirror.upstream.VerifiedPackage;
import io.providermirror.upstream.VerifiedRelease;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verified provider versions and their rendered version documents. A version is fetched and verified once
 * (every platform's download document, SHA256SUMS and its signature), its evidence persisted, and from then
 * on it is immutable; only the {@code h1:} hashes grow as archives are verified.
 */
public final class Releases {

    private static final Logger LOG = LoggerFactory.getLogger(Releases.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * A verified release with the {@code h1:} hashes known so far and its rendered version document;
     * {@code fromOrigin} when it was fetched and verified (rather than read from disk) as it entered memory.
     */
    record Entry(VerifiedRelease release, Map<Platform, String> h1, RenderedDocument document, boolean fromOrigin) {
        /** Roughly the heap this entry holds: the rendered bytes plus each platform's verified package. */
        int estimatedBytes() {
            return 256 + document.json().length + 600 * release.packages().size() + 150 * h1.size();
        }
    }

    private record Key(ProviderAddress address, ProviderVersion version) {
    }

    private final VersionIndexes indexes;
    private final OriginRegistries origins;
    private final RegistryClient registry;
    private final ParentMirrorClient parents;
    private final DocumentStore documents;
    private final Executor executor;
    private final AsyncCache<Key, Entry> entries;
    private final MirrorMetrics metrics;
    private final ProviderPolicy policy;
    private final OriginRules rules;

    Releases(VersionIndexes indexes, OriginRegistries origins, Upstream upstream, DocumentStore documents,
             Executor executor, long memoryBytes, MirrorMetrics metrics, ProviderPolicy policy, OriginRules rules) {
        this.metrics = metrics;
        this.policy = policy;
        this.rules = rules;
        this.indexes = indexes;
        this.origins = origins;
        this.registry = upstream.registry();
        this.parents = upstream.parents();
        this.documents = documents;
        this.executor = executor;
        this.entries = Caffeine.newBuilder()
                .maximumWeight(memoryBytes)
                .weigher((Key key, Entry entry) -> entry.estimatedBytes())
                // Maintenance (weighing, evicting) is cheap and runs where a value completes, so an entry over
                // the memory budget is gone before the next request can find it.
                .executor(Runnable::run)
                .recordStats()
                .buildAsync();
        metrics.monitor(entries, "releases");
    }

    /** As {@link #get}, for a client's request: counted as a cache hit or miss. */
    CompletableFuture<Entry> lookup(ProviderAddress address, ProviderVersion version) {
        CompletableFuture<Entry> present = entries.getIfPresent(new Key(address, version));
        if (present != null && present.isDone() && !present.isCompletedExceptionally()) {
            metrics.cacheLookup(MirrorMetrics.LookupKind.VERSION, MirrorMetrics.LookupResult.HIT);
            return present;
        }
        return get(address, version).whenComplete((entry, failure) -> metrics.cacheLookup(
                MirrorMetrics.LookupKind.VERSION, failure != null || entry.fromOrigin()
                        ? MirrorMetrics.LookupResult.MISS : MirrorMetrics.LookupResult.HIT));
    }

    /** The verified release; fetched and verified only when it is in neither memory nor the cache directory. */
    CompletableFuture<Entry> get(ProviderAddress address, ProviderVersion version) {
        // Everything, the disk read included, runs on the executor: callers may be event-loop threads.
        return entries.get(new Key(address, version), (key, ignored) -> CompletableFuture
                .supplyAsync(() -> loadFromDisk(key), executor)
                .thenCompose(stored -> stored
                        .map(CompletableFuture::completedFuture)
                        .orElseGet(() -> indexes.get(address).thenApplyAsync(index -> {
                            ListedVersion listed = index.list().find(version).orElseThrow(() -> new OriginException(
                                    OriginException.Reason.NOT_FOUND, "version " + version + " of " + address
                                    + " is not listed by its origin (as of " + index.fetchedAt() + ")"));
                            return fetch(key, listed);
                        }, executor)))
                .whenComplete((entry, failure) -> OriginFailures.log(LOG, address + " " + version, failure)));
    }

    /** Records the {@code h1:} hash of a verified archive, so version documents list it from now on. */
    synchronized void recordH1(ProviderAddress address, ProviderVersion version, Platform platform, String h1) {
        Map<Platform, String> hashes = new TreeMap<>(readHashes(address, version));
        if (h1.equals(hashes.put(platform, h1))) {
            return;
        }
        Map<String, String> stored = new TreeMap<>();
        hashes.forEach((p, h) -> stored.put(p.toString(), h));
        try {
            documents.write(CacheLayout.packageHashes(address, version), JSON.writeValueAsBytes(stored));
        } catch (IOException e) {
            LOG.warn("cannot store the h1 hash of {} {} {}: {}", address, version, platform, e.toString());
        }
        Key key = new Key(address, version);
        CompletableFuture<Entry> current = entries.getIfPresent(key);
        if (current != null && current.isDone() && !current.isCompletedExceptionally()) {
            entries.put(key, CompletableFuture.completedFuture(entry(current.join().release(), hashes, false)));
        }
    }

    /** A verified release as the cache directory holds it, with its known {@code h1:} hashes and when it was verified. */
    public record Stored(VerifiedRelease release, Map<Platform, String> h1, java.time.Instant verifiedAt) {
    }

    /**
     * The verified release of {@code version} if the cache directory holds one, checked again as on a restart;
     * never asks an origin. Blocking: reads the cache directory.
     */
    Optional<Stored> stored(ProviderAddress address, ProviderVersion version) {
        Key key = new Key(address, version);
        Optional<StoredDocument> document;
        try {
            document = documents.read(CacheLayout.release(address, version));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the cached release of " + address + " " + version, e);
        }
        if (document.isEmpty()) {
            return Optional.empty();
        }
        CompletableFuture<Entry> current = entries.getIfPresent(key);
        Optional<Entry> entry = current != null && current.isDone() && !current.isCompletedExceptionally()
                ? Optional.of(current.join()) : loadFromDisk(key);
        return entry.map(e -> new Stored(e.release(), e.h1(), document.get().storedAt()));
    }

    private Optional<Entry> loadFromDisk(Key key) {
        Optional<StoredDocument> stored;
        try {
            stored = documents.read(CacheLayout.release(key.address(), key.version()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the cached release of " + key.address() + " " + key.version(), e);
        }
        if (stored.isEmpty()) {
            return Optional.empty();
        }
        try {
            ReleaseEvidence evidence = JSON.readValue(stored.get().content(), ReleaseEvidence.class);
            VerifiedRelease release = ReleaseVerifier.verify(key.address(), key.version(), evidence,
                    rules.signaturePolicy(key.address().hostname()));
            return Optional.of(entry(release, readHashes(key.address(), key.version()), false));
        } catch (IOException | OriginException | IllegalArgumentException e) {
            LOG.warn("the cached release of {} {} does not verify ({}); fetching it again",
                    key.address(), key.version(), e.getMessage());
            return Optional.empty();
        }
    }

    private Entry fetch(Key key, ListedVersion listed) {
        ProviderAddress address = key.address();
        Optional<java.net.URI> parent = rules.parentMirror(address.hostname());
        ReleaseEvidence evidence = parent.isPresent() ? parents.fetchRelease(parent.get(), address, key.version())
                : registry.fetchRelease(origins.providersBase(address.hostname()), address, listed);
        VerifiedRelease release;
        try {
            release = ReleaseVerifier.verify(address, key.version(), evidence, rules.signaturePolicy(address.hostname()));
        } catch (VerificationException e) {
            LOG.error("refusing {} {} from {}: {} check failed: {}", address, key.version(),
                    origins.describe(address.hostname()), e.check(), e.getMessage());
            metrics.verificationFailure(address.hostname(), e.check().name(), address + " " + key.version(),
                    e.getMessage());
            throw e;
        }
        if (release.packages().values().stream().anyMatch(VerifiedPackage::unsigned)) {
            LOG.warn("accepting {} {} from {} without a signature: its origin lists no signing keys, and the policy of "
                    + "{} allows that (SHA256SUMS was checked)", address, key.version(),
                    origins.describe(address.hostname()), address.hostname());
            metrics.unsignedRelease(address.hostname());
        }
        try {
            documents.write(CacheLayout.release(address, key.version()), JSON.writeValueAsBytes(evidence));
        } catch (IOException e) {
            LOG.warn("cannot store the release of {} {}: {}", address, key.version(), e.toString());
        }
        return entry(release, readHashes(address, key.version()), true);
    }

    private Map<Platform, String> readHashes(ProviderAddress address, ProviderVersion version) {
        try {
            Optional<StoredDocument> stored = documents.read(CacheLayout.packageHashes(address, version));
            if (stored.isEmpty()) {
                return Map.of();
            }
            Map<String, String> raw = JSON.readValue(stored.get().content(), new TypeReference<Map<String, String>>() {
            });
            Map<Platform, String> hashes = new TreeMap<>();
            raw.forEach((platform, h1) -> hashes.put(Platform.parse(platform), h1));
            return hashes;
        } catch (IOException | IllegalArgumentException e) {
            LOG.warn("ignoring unreadable h1 hashes of {} {}: {}", address, version, e.toString());
            return Map.of();
        }
    }

    /** An entry whose version document is rendered once, with bare archive URLs. */
    private Entry entry(VerifiedRelease release, Map<Platform, String> h1, boolean fromOrigin) {
        return new Entry(release, Map.copyOf(h1), render(release, h1, platform -> null), fromOrigin);
    }

    /**
     * The version document of {@code entry} with a query (such as a signature) appended to each archive URL,
     * rendered for one response.
     */
    RenderedDocument render(Entry entry, Function<Platform, String> query) {
        return render(entry.release(), entry.h1(), query);
    }

    /** The version document: the platforms the policy lets in, each with its archive's file name and hashes. */
    private RenderedDocument render(VerifiedRelease release, Map<Platform, String> h1, Function<Platform, String> query) {
        return VersionDocuments.render(release, h1, policy::allows, query);
    }
}
