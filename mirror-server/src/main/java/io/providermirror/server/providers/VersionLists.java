package io.providermirror.server.providers;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.server.core.Origins;
import io.providermirror.server.core.ProviderPolicy;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.server.core.VersionSightings;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.ListedVersion;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.RegistryClient;
import io.providermirror.upstream.VersionList;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Providers' version lists ({@code versions.json} in the cache, {@code index.json} to clients): loaded from disk
 * or the origin once, answered from memory as pre-rendered {@code index.json} bytes, and refreshed from the origin
 * in the background once older than the TTL. While a refresh runs, or when it fails, the last good list is served.
 * A provider its origin does not have is remembered as such for a short while, so a flood of made-up names does
 * not become a flood of origin requests.
 */
public final class VersionLists {

    private static final Logger LOG = LoggerFactory.getLogger(VersionLists.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * A version list with its rendered {@code index.json} and the time it was fetched from the origin;
     * {@code fromOrigin} when it was fetched (rather than read from disk) as it entered memory; {@code sightings}
     * when the mirror first saw each version, if it knows.
     */
    public record Entry(
            VersionList list,
            RenderedDocument index,
            Instant fetchedAt,
            boolean fromOrigin,
            int allowedVersions,
            Optional<VersionSightings> sightings) {
        Entry withSightings(VersionSightings updated) {
            return new Entry(list, index, fetchedAt, fromOrigin, allowedVersions, Optional.of(updated));
        }

        /**
         * Roughly the heap this entry holds: the rendered bytes plus the parsed versions and platforms, and the
         * registry form the providers.v1 face renders of it when asked (counted whether or not it was).
         */
        int estimatedBytes() {
            int bytes = 256 + 2 * index.json().length;
            for (var version : list.versions().values()) {
                bytes += 250 + 180 * version.platforms().size();
            }
            return bytes;
        }
    }

    private final Origins origins;
    private final CacheDocuments documents;
    private final Executor executor;
    private final Clock clock;
    private final Duration ttl;
    private final Duration retryInterval;
    private final boolean refreshes;
    private final AsyncCache<ProviderAddress, Entry> entries;
    private final MirrorMetrics metrics;
    private final ProviderPolicy policy;
    private final RefreshLease refreshLease;
    private final ProviderSightings sightings;
    /** Providers whose origin answered "not found" lately, with that answer; empty when nothing is remembered. */
    private final Cache<ProviderAddress, OriginException> notFound;

    private final Map<ProviderAddress, Instant> refreshing = new ConcurrentHashMap<>();
    private final Map<ProviderAddress, Instant> lastFailedRefresh = new ConcurrentHashMap<>();

    /**
     * Takes three eighths of {@code settings.metadataMemoryBytes()}; {@link Releases} has as much, and the
     * providers.v1 face ({@code ProviderRegistryFace}) the last quarter.
     */
    VersionLists(
            ProviderMirror.Settings settings,
            Origins origins,
            CacheDocuments documents,
            Executor executor,
            Clock clock,
            MirrorMetrics metrics,
            ProviderPolicy policy,
            RefreshLease refreshLease) {
        this.refreshLease = refreshLease;
        this.metrics = metrics;
        this.policy = policy;
        this.origins = origins;
        this.documents = documents;
        this.sightings = new ProviderSightings(documents);
        this.executor = executor;
        this.clock = clock;
        this.ttl = settings.indexTtl();
        this.refreshes = !settings.offline();
        long memoryBytes = settings.metadataMemoryBytes() / 8 * 3;
        Duration notFoundTtl = settings.notFoundTtl();
        this.retryInterval = ttl.compareTo(Duration.ofSeconds(30)) < 0 ? ttl : Duration.ofSeconds(30);
        this.entries = Caffeine.newBuilder()
                .maximumWeight(memoryBytes)
                .weigher((ProviderAddress address, Entry entry) -> entry.estimatedBytes())
                // Maintenance (weighing, evicting) is cheap and runs where a value completes, so an entry over
                // the memory budget is gone before the next request can find it.
                .executor(Runnable::run)
                .recordStats()
                .buildAsync();
        metrics.monitor(entries, "version_lists");
        this.notFound = Caffeine.newBuilder()
                // Bounded like any cache keyed by what clients send; the clock is the mirror's, as tests move it.
                .maximumSize(refreshes && !notFoundTtl.isZero() ? 10_000 : 0)
                .expireAfterWrite(notFoundTtl)
                .ticker(() -> nanos(clock))
                .executor(Runnable::run)
                .build();
    }

    /** Forgets the list memory holds for {@code address}, and a remembered "not found": the cache answers next. */
    void forget(ProviderAddress address) {
        entries.synchronous().invalidate(address);
        notFound.invalidate(address);
    }

    /** The clock's time in nanoseconds, as a Caffeine ticker. */
    private static long nanos(Clock clock) {
        Instant now = clock.instant();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /**
     * The provider's version list; fetched from its origin only when nothing is cached. A client's request is
     * counted as a cache hit, stale hit or miss.
     */
    CompletableFuture<Entry> get(ProviderAddress address, Requester requester) {
        if (requester == Requester.MIRROR) {
            return cachedOrLoaded(address);
        }
        CompletableFuture<Entry> present = entries.getIfPresent(address);
        if (present != null && present.isDone() && !present.isCompletedExceptionally()) {
            Entry entry = present.join();
            metrics.cacheLookup(
                    MirrorMetrics.LookupKind.INDEX,
                    isStale(entry) ? MirrorMetrics.LookupResult.STALE : MirrorMetrics.LookupResult.HIT);
            refreshIfStale(address, entry);
            return present;
        }
        return cachedOrLoaded(address)
                .whenComplete((entry, failure) -> metrics.cacheLookup(
                        MirrorMetrics.LookupKind.INDEX,
                        failure != null || entry.fromOrigin()
                                ? MirrorMetrics.LookupResult.MISS
                                : isStale(entry) ? MirrorMetrics.LookupResult.STALE : MirrorMetrics.LookupResult.HIT));
    }

    private CompletableFuture<Entry> cachedOrLoaded(ProviderAddress address) {
        OriginException missing = notFound.getIfPresent(address);
        if (missing != null) {
            return CompletableFuture.failedFuture(new OriginException(
                    missing.reason(), missing.getMessage() + " (remembered for cache.notFoundTtl)", missing.status()));
        }
        return entries.get(
                        address,
                        (key, ignored) -> CompletableFuture.supplyAsync(() -> loadRemembering(key), executor)
                                .whenComplete((entry, failure) ->
                                        OriginFailures.log(LOG, "the version list of " + key, failure)))
                .thenApply(entry -> {
                    refreshIfStale(address, entry);
                    return entry;
                });
    }

    /** As {@link #load}, remembering a "not found" before any request can see the load fail. */
    private Entry loadRemembering(ProviderAddress address) {
        try {
            return load(address);
        } catch (OriginException e) {
            if (e.reason() == OriginException.Reason.NOT_FOUND) {
                notFound.put(address, e);
            }
            throw e;
        }
    }

    private Entry load(ProviderAddress address) {
        try {
            Optional<CacheDocuments.Dated<VersionList>> stored = documents.versionList(address);
            if (stored.isPresent()) {
                return entry(stored.get().value(), stored.get().storedAt(), false, sightings.read(address));
            }
        } catch (CacheDocuments.Unreadable e) {
            LOG.warn(
                    "the cached version list of {} is unreadable ({}); fetching it again",
                    address,
                    e.getCause().getMessage());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the cached version list of " + address, e);
        }
        return fetch(address);
    }

    /**
     * The origin's spelling of {@code version}, as the version list in memory or in the cache directory gives it;
     * never asks the origin. Blocking: may read the cache directory.
     */
    Optional<String> cachedSpelling(ProviderAddress address, ProviderVersion version) {
        CompletableFuture<Entry> present = entries.getIfPresent(address);
        Optional<VersionList> list;
        if (present != null && present.isDone() && !present.isCompletedExceptionally()) {
            list = Optional.of(present.join().list());
        } else {
            try {
                list = documents.versionList(address).map(CacheDocuments.Dated::value);
            } catch (IOException e) {
                list = Optional.empty();
            }
        }
        return list.flatMap(l -> l.find(version)).map(ListedVersion::originSpelling);
    }

    private Entry fetch(ProviderAddress address) {
        RegistryClient.FetchedVersions fetched = origins.of(address.hostname()).versions(address);
        try {
            documents.writeVersionList(address, fetched.body());
        } catch (IOException e) {
            LOG.warn("cannot store the version list of {}: {}", address, e.toString());
        }
        Instant now = clock.instant();
        return entry(
                fetched.list(),
                now,
                true,
                sightings.sighted(address, fetched.list().versions().keySet(), now));
    }

    /**
     * Keeps, in the background, that the origin signed {@code version} of {@code address} at {@code at}, beside when
     * the mirror first saw it, so version lists weigh that too; nothing when it is known already.
     */
    void recordSigned(ProviderAddress address, ProviderVersion version, Instant at) {
        CompletableFuture<Entry> present = entries.getIfPresent(address);
        if (present == null || !present.isDone() || present.isCompletedExceptionally()) {
            return;
        }
        Optional<VersionSightings> known = present.join().sightings();
        if (known.isEmpty() || at.equals(known.get().signed().get(version))) {
            return;
        }
        executor.execute(() -> sightings
                .signed(address, version, at)
                .ifPresent(updated -> entries.asMap()
                        .computeIfPresent(
                                address,
                                (key, current) -> current.isDone() && !current.isCompletedExceptionally()
                                        ? CompletableFuture.completedFuture(
                                                current.join().withSightings(updated))
                                        : current)));
    }

    /**
     * {@code entry} with only the versions {@code offered} lets in, its {@code index.json} rendered again; the same
     * entry when that leaves every version in.
     */
    Entry offered(Entry entry, Predicate<ProviderVersion> offered) {
        Map<ProviderVersion, ListedVersion> kept = new LinkedHashMap<>();
        entry.list().versions().forEach((version, listed) -> {
            if (!policy.allows(entry.list().address(), version) || offered.test(version)) {
                kept.put(version, listed);
            }
        });
        if (kept.size() == entry.list().versions().size()) {
            return entry;
        }
        return entry(
                new VersionList(entry.list().address(), kept),
                entry.fetchedAt(),
                entry.fromOrigin(),
                entry.sightings());
    }

    private boolean isStale(Entry entry) {
        return refreshes && Duration.between(entry.fetchedAt(), clock.instant()).compareTo(ttl) > 0;
    }

    private void refreshIfStale(ProviderAddress address, Entry entry) {
        if (!isStale(entry)) {
            return;
        }
        Instant now = clock.instant();
        Instant failed = lastFailedRefresh.get(address);
        if (failed != null && Duration.between(failed, now).compareTo(retryInterval) < 0) {
            return;
        }
        if (refreshing.putIfAbsent(address, now) != null) {
            return;
        }
        executor.execute(() -> {
            try {
                Optional<Entry> refreshedElsewhere = storedSince(address, entry);
                if (refreshedElsewhere.isPresent()) {
                    entries.put(address, CompletableFuture.completedFuture(refreshedElsewhere.get()));
                    return;
                }
                boolean refreshed = refreshLease.runIfGranted(CacheLayout.versions(address), () -> {
                    Entry fresh = fetch(address);
                    entries.put(address, CompletableFuture.completedFuture(fresh));
                    lastFailedRefresh.remove(address);
                });
                if (!refreshed) {
                    // Another instance is refreshing it: look for its list in the store after the retry interval.
                    lastFailedRefresh.put(address, clock.instant());
                }
            } catch (RuntimeException e) {
                lastFailedRefresh.put(address, clock.instant());
                LOG.warn(
                        "refreshing the version list of {} failed; serving the one fetched at {}: {}",
                        address,
                        entry.fetchedAt(),
                        e.getMessage());
            } finally {
                refreshing.remove(address);
            }
        });
    }

    /**
     * The list in the store, when another instance sharing it stored one fresher than {@code entry} that is not
     * stale yet; empty otherwise, or when it cannot be read (the refresh then asks the origin).
     */
    private Optional<Entry> storedSince(ProviderAddress address, Entry entry) {
        try {
            return documents
                    .versionList(address)
                    .filter(stored -> stored.storedAt().isAfter(entry.fetchedAt()))
                    .map(stored -> entry(stored.value(), stored.storedAt(), false, sightings.read(address)))
                    .filter(stored -> !isStale(stored));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Renders {@code index.json} once, with only the versions the policy lets in. */
    private Entry entry(VersionList list, Instant fetchedAt, boolean fromOrigin, Optional<VersionSightings> sightings) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode versions = root.putObject("versions");
        int allowed = 0;
        for (ProviderVersion version : list.versions().keySet()) {
            if (policy.allows(list.address(), version)) {
                versions.putObject(version.canonical());
                allowed++;
            }
        }
        try {
            return new Entry(
                    list,
                    new RenderedDocument(JSON.writeValueAsBytes(root)),
                    fetchedAt,
                    fromOrigin,
                    allowed,
                    sightings);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
