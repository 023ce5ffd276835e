package io.providermirror.server.face.modules;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.Futures;
import io.providermirror.server.core.ModuleOrigins;
import io.providermirror.server.core.VersionSightings;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.ModuleRegistryClient;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.VerificationException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Modules' version lists, pulled through and cached as providers' are: read from memory, else the cache, else the
 * origin (one request however many callers); refreshed in the background once older than the TTL; the last good
 * list is served while a refresh runs and when it fails (stale-if-error). Offline, only the cache answers. A list
 * holds each version the CLI tells apart once ({@link DistinctVersions}); a build-metadata twin an origin lists is
 * left out and counted ({@code module_version_twin}).
 */
final class ModuleVersions {

    private static final Logger LOG = LoggerFactory.getLogger(ModuleVersions.class);

    /**
     * A module's versions in the origin's order, when they were fetched from it, and when the mirror first saw each
     * (if it knows).
     */
    record Entry(List<ProviderVersion> versions, Instant fetchedAt, Optional<VersionSightings> sightings) {}

    private final ModuleOrigins origins;
    private final CacheDocuments documents;
    private final Executor executor;
    private final Clock clock;
    private final Duration ttl;
    private final boolean offline;
    private final MirrorMetrics metrics;
    private final Cache<ModuleAddress, Entry> memory;
    private final Map<ModuleAddress, CompletableFuture<Entry>> fetching = new ConcurrentHashMap<>();

    ModuleVersions(
            ModuleOrigins origins,
            CacheDocuments documents,
            Executor executor,
            Clock clock,
            Duration ttl,
            boolean offline,
            MirrorMetrics metrics) {
        this.origins = origins;
        this.documents = documents;
        this.executor = executor;
        this.clock = clock;
        this.ttl = ttl;
        this.offline = offline;
        this.metrics = metrics;
        // Bounded like every cache keyed by what clients send; a list is small (a few dozen versions).
        this.memory = Caffeine.newBuilder().maximumSize(10_000).build();
    }

    /** Forgets the list memory holds for {@code address}: the next request reads the cache again. */
    void forget(ModuleAddress address) {
        memory.invalidate(address);
    }

    /** The versions of {@code address}: fresh, stale (a refresh follows), or fetched now. */
    CompletableFuture<Entry> get(ModuleAddress address) {
        Entry known = memory.getIfPresent(address);
        if (known != null) {
            return CompletableFuture.completedFuture(served(address, known));
        }
        return CompletableFuture.supplyAsync(() -> fromCache(address), executor)
                .thenCompose(cached -> cached.map(entry -> CompletableFuture.completedFuture(served(address, entry)))
                        .orElseGet(() -> {
                            metrics.cacheLookup(
                                    MirrorMetrics.LookupKind.MODULE_VERSIONS, MirrorMetrics.LookupResult.MISS);
                            return fetch(address);
                        }));
    }

    private Entry served(ModuleAddress address, Entry entry) {
        boolean stale = entry.fetchedAt().plus(ttl).isBefore(clock.instant());
        metrics.cacheLookup(
                MirrorMetrics.LookupKind.MODULE_VERSIONS,
                stale ? MirrorMetrics.LookupResult.STALE : MirrorMetrics.LookupResult.HIT);
        if (stale && !offline) {
            fetch(address).whenComplete((fresh, failure) -> {
                if (failure != null) {
                    LOG.warn(
                            "refreshing the version list of module {} failed; serving the one from {}: {}",
                            address,
                            entry.fetchedAt(),
                            Futures.cause(failure).getMessage());
                }
            });
        }
        return entry;
    }

    private Optional<Entry> fromCache(ModuleAddress address) {
        try {
            Optional<Entry> entry = documents
                    .moduleVersionList(address)
                    .map(stored -> new Entry(
                            DistinctVersions.of(stored.value()).listed(), stored.storedAt(), readSightings(address)));
            entry.ifPresent(known -> memory.put(address, known));
            return entry;
        } catch (CacheDocuments.Unreadable e) {
            // Its message names the list and what is wrong with it.
            LOG.warn("{}", e.getMessage());
            return Optional.empty();
        } catch (IOException e) {
            LOG.warn("cannot read the cached version list of module {}: {}", address, e.getMessage());
            return Optional.empty();
        }
    }

    /** The sightings of {@code address} with {@code listed} seen at {@code now}, stored when that adds any. */
    private Optional<VersionSightings> sighted(ModuleAddress address, List<ProviderVersion> listed, Instant now) {
        Optional<VersionSightings> earlier = readSightings(address);
        if (earlier.isPresent() && !earlier.get().lacksAny(listed)) {
            return earlier;
        }
        VersionSightings updated = VersionSightings.update(earlier, listed, now);
        try {
            documents.writeSightings(address, updated);
            return Optional.of(updated);
        } catch (IOException e) {
            LOG.warn("cannot store when the versions of module {} were first seen: {}", address, e.getMessage());
            return earlier;
        }
    }

    private Optional<VersionSightings> readSightings(ModuleAddress address) {
        try {
            return documents.sightings(address);
        } catch (IOException e) {
            LOG.warn("cannot read when the versions of module {} were first seen: {}", address, e.getMessage());
            return Optional.empty();
        }
    }

    /** Counts and logs a version the origin lists beside one that differs from it only in build metadata. */
    private void twinListed(ModuleAddress address, ProviderVersion twin, DistinctVersions distinct) {
        ProviderVersion one = twin.withoutBuildMetadata();
        ProviderVersion listed = distinct.listed().stream()
                .filter(version -> version.withoutBuildMetadata().equals(one))
                .findFirst()
                .orElse(one);
        String message = "module " + address + ": its origin lists " + twin + " beside " + listed
                + ", which differs only in build metadata; the CLI takes them for one version, so the mirror lists "
                + listed + " only and serves what it pinned for " + one + " to either (a twin beside a version is a "
                + "supply-chain alarm: ask the module's publisher)";
        metrics.verificationFailure(
                address.hostname(),
                VerificationException.Check.MODULE_VERSION_TWIN.name(),
                address.toString(),
                message);
        LOG.warn("{}", message);
    }

    /** One origin request for {@code address} at a time; its result replaces what memory and the cache hold. */
    private CompletableFuture<Entry> fetch(ModuleAddress address) {
        if (offline) {
            return CompletableFuture.failedFuture(new OriginException(
                    OriginException.Reason.NOT_FOUND,
                    "module " + address + " is not in the cache and the mirror is offline (upstream.offline)"));
        }
        CompletableFuture<Entry> started = new CompletableFuture<>();
        CompletableFuture<Entry> running = fetching.putIfAbsent(address, started);
        if (running != null) {
            return running;
        }
        CompletableFuture.runAsync(
                () -> {
                    try {
                        ModuleRegistryClient.FetchedModuleVersions fetched =
                                origins.of(address.hostname()).versions(address);
                        try {
                            documents.writeModuleVersions(address, fetched.body());
                        } catch (IOException e) {
                            LOG.warn("cannot store the version list of module {}: {}", address, e.getMessage());
                        }
                        DistinctVersions distinct = DistinctVersions.of(fetched.versions());
                        distinct.twins().forEach(twin -> twinListed(address, twin, distinct));
                        Instant now = clock.instant();
                        Entry entry = new Entry(distinct.listed(), now, sighted(address, distinct.listed(), now));
                        memory.put(address, entry);
                        started.complete(entry);
                    } catch (RuntimeException e) {
                        started.completeExceptionally(e);
                    } finally {
                        fetching.remove(address, started);
                    }
                },
                executor);
        return started;
    }
}
