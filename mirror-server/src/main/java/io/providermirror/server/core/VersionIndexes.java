package io.providermirror.server.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.StoredDocument;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.ParentMirrorClient;
import io.providermirror.upstream.RegistryClient;
import io.providermirror.upstream.VersionList;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Providers' version lists: loaded from disk or the origin once, answered from memory as pre-rendered
 * {@code index.json} bytes, and refreshed from the origin in the background once older than the TTL. While
 * a refresh runs, or when it fails, the last good list is served. A provider its origin does not have is
 * remembered as such for a short while, so a flood of made-up names does not become a flood of origin requests.
 */
final class VersionIndexes {

    private static final Logger LOG = LoggerFactory.getLogger(VersionIndexes.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * A version list with its rendered {@code index.json} and the time it was fetched from the origin;
     * {@code fromOrigin} when it was fetched (rather than read from disk) as it entered memory.
     */
    record Entry(VersionList list, RenderedDocument index, Instant fetchedAt, boolean fromOrigin, int allowedVersions) {
        /** Roughly the heap this entry holds: the rendered bytes plus the parsed versions and platforms. */
        int estimatedBytes() {
            int bytes = 256 + index.json().length;
            for (var version : list.versions().values()) {
                bytes += 200 + 150 * version.platforms().size();
            }
            return bytes;
        }
    }

    private final OriginRegistries origins;
    private final RegistryClient registry;
    private final ParentMirrorClient parents;
    private final OriginRules rules;
    private final DocumentStore documents;
    private final Executor executor;
    private final Clock clock;
    private final Duration ttl;
    private final Duration retryInterval;
    private final boolean refreshes;
    private final AsyncCache<ProviderAddress, Entry> entries;
    private final MirrorMetrics metrics;
    private final ProviderPolicy policy;
    /** Providers whose origin answered "not found" lately, with that answer; empty when nothing is remembered. */
    private final Cache<ProviderAddress, OriginException> notFound;
    private final Map<ProviderAddress, Instant> refreshing = new ConcurrentHashMap<>();
    private final Map<ProviderAddress, Instant> lastFailedRefresh = new ConcurrentHashMap<>();

    VersionIndexes(OriginRegistries origins, Upstream upstream, OriginRules rules, DocumentStore documents, Executor executor,
                   Clock clock, Duration ttl, boolean refreshes, long memoryBytes, MirrorMetrics metrics,
                   ProviderPolicy policy, Duration notFoundTtl) {
        this.metrics = metrics;
        this.policy = policy;
        this.origins = origins;
        this.registry = upstream.registry();
        this.parents = upstream.parents();
        this.rules = rules;
        this.documents = documents;
        this.executor = executor;
        this.clock = clock;
        this.ttl = ttl;
        this.refreshes = refreshes;
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

    /** The clock's time in nanoseconds, as a Caffeine ticker. */
    private static long nanos(Clock clock) {
        Instant now = clock.instant();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** As {@link #get}, for a client's request: counted as a cache hit, stale hit or miss. */
    CompletableFuture<Entry> lookup(ProviderAddress address) {
        CompletableFuture<Entry> present = entries.getIfPresent(address);
        if (present != null && present.isDone() && !present.isCompletedExceptionally()) {
            Entry entry = present.join();
            metrics.cacheLookup(MirrorMetrics.LookupKind.INDEX, isStale(entry)
                    ? MirrorMetrics.LookupResult.STALE : MirrorMetrics.LookupResult.HIT);
            refreshIfStale(address, entry);
            return present;
        }
        return get(address).whenComplete((entry, failure) -> metrics.cacheLookup(MirrorMetrics.LookupKind.INDEX,
                failure != null || entry.fromOrigin() ? MirrorMetrics.LookupResult.MISS
                        : isStale(entry) ? MirrorMetrics.LookupResult.STALE : MirrorMetrics.LookupResult.HIT));
    }

    /** The provider's version list; fetched from its origin only when nothing is cached. */
    CompletableFuture<Entry> get(ProviderAddress address) {
        OriginException missing = notFound.getIfPresent(address);
        if (missing != null) {
            return CompletableFuture.failedFuture(new OriginException(missing.reason(), missing.getMessage()
                    + " (remembered for cache.notFoundTtl)", missing.status()));
        }
        return entries.get(address, (key, ignored) -> CompletableFuture.supplyAsync(() -> loadRemembering(key), executor)
                        .whenComplete((entry, failure) -> OriginFailures.log(LOG, "the version list of " + key, failure)))
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
        Optional<StoredDocument> stored;
        try {
            stored = documents.read(CacheLayout.versions(address));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the cached version list of " + address, e);
        }
        if (stored.isPresent()) {
            try {
                return entry(VersionList.parse(address, stored.get().content(), "the cache"), stored.get().storedAt(), false);
            } catch (OriginException e) {
                LOG.warn("the cached version list of {} is unreadable ({}); fetching it again", address, e.getMessage());
            }
        }
        return fetch(address);
    }

    private Entry fetch(ProviderAddress address) {
        java.util.Optional<java.net.URI> parent = rules.parentMirror(address.hostname());
        RegistryClient.FetchedVersions fetched = parent.isPresent() ? parents.versions(parent.get(), address)
                : registry.versions(origins.providersBase(address.hostname()), address);
        try {
            documents.write(CacheLayout.versions(address), fetched.body());
        } catch (IOException e) {
            LOG.warn("cannot store the version list of {}: {}", address, e.toString());
        }
        return entry(fetched.list(), clock.instant(), true);
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
                Entry fresh = fetch(address);
                entries.put(address, CompletableFuture.completedFuture(fresh));
                lastFailedRefresh.remove(address);
            } catch (RuntimeException e) {
                lastFailedRefresh.put(address, clock.instant());
                LOG.warn("refreshing the version list of {} failed; serving the one fetched at {}: {}",
                        address, entry.fetchedAt(), e.getMessage());
            } finally {
                refreshing.remove(address);
            }
        });
    }

    /** Renders {@code index.json} once, with only the versions the policy lets in. */
    private Entry entry(VersionList list, Instant fetchedAt, boolean fromOrigin) {
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
            return new Entry(list, new RenderedDocument(JSON.writeValueAsBytes(root)), fetchedAt, fromOrigin, allowed);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
