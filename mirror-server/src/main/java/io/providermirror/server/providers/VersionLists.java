package io.providermirror.server.providers;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.server.core.Origins;
import io.providermirror.server.core.ProviderPolicy;
import io.providermirror.server.core.PulledAnswers;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.server.core.Sightings;
import io.providermirror.server.core.VersionSightings;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.HostLanes;
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
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Providers' version lists ({@code versions.json} in the cache, {@code index.json} to clients): loaded from disk
 * or the origin once, answered from memory as pre-rendered {@code index.json} bytes, and refreshed from the origin
 * in the background once older than the TTL, unless another instance of a fleet holds the refresh lease
 * ({@link RefreshLease}) or stored a fresher list meanwhile. While a refresh runs, or when it fails, the last good
 * list is served. A provider its origin does not have is remembered as such for a short while, so a flood of
 * made-up names does not become a flood of origin requests. Held by {@link PulledAnswers}.
 */
public final class VersionLists {

    private static final Logger LOG = LoggerFactory.getLogger(VersionLists.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * A version list with its rendered {@code index.json}, how many of its versions the policy lets in, and when the
     * mirror first saw each version ({@code sightings}), if it knows.
     */
    public record Entry(
            VersionList list, RenderedDocument index, int allowedVersions, Optional<VersionSightings> sightings) {
        Entry withSightings(VersionSightings updated) {
            return new Entry(list, index, allowedVersions, Optional.of(updated));
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
    private final Clock clock;
    private final Duration ttl;
    private final boolean refreshes;
    private final ProviderPolicy policy;
    private final RefreshLease refreshLease;
    private final PulledAnswers<ProviderAddress, Entry> entries;
    private final Sightings sightings;
    private final Executor executor;

    /**
     * Takes three eighths of {@code settings.metadataMemoryBytes()}; {@link Releases} has as much, and the
     * providers.v1 face ({@code ProviderRegistryFace}) the last quarter. A provider its origin does not have is
     * remembered as such for {@code settings.notFoundTtl()}.
     */
    VersionLists(
            ProviderMirror.Settings settings,
            Origins origins,
            CacheDocuments documents,
            Executor executor,
            HostLanes lanes,
            Clock clock,
            MirrorMetrics metrics,
            ProviderPolicy policy,
            RefreshLease refreshLease) {
        this.refreshLease = refreshLease;
        this.policy = policy;
        this.origins = origins;
        this.documents = documents;
        this.sightings = new Sightings(documents);
        this.executor = executor;
        this.clock = clock;
        this.ttl = settings.indexTtl();
        this.refreshes = !settings.offline();
        this.entries = PulledAnswers.builder(new Lists(), executor, clock, ttl)
                .weighing(Entry::estimatedBytes, settings.metadataMemoryBytes() / 8 * 3)
                .offline(settings.offline())
                .pulledPerHost(lanes, ProviderAddress::hostname)
                .describedAs(address -> "the version list of " + address)
                .rememberingFailures(
                        refreshes ? settings.notFoundTtl() : Duration.ZERO,
                        failure -> failure instanceof OriginException origin
                                && origin.reason() == OriginException.Reason.NOT_FOUND,
                        failure -> {
                            OriginException missing = (OriginException) failure;
                            return new OriginException(
                                    missing.reason(),
                                    missing.getMessage() + " (remembered for cache.notFoundTtl)",
                                    missing.status());
                        })
                .onLoadFailure((address, failure) -> OriginFailures.log(LOG, "the version list of " + address, failure))
                .counting(metrics, MirrorMetrics.LookupKind.INDEX)
                .monitored(metrics, "version_lists")
                .build();
    }

    /** Forgets the list memory holds for {@code address}, and a remembered "not found": the cache answers next. */
    void forget(ProviderAddress address) {
        entries.forget(address);
    }

    /**
     * The provider's version list; fetched from its origin only when nothing is cached. A client's request is
     * counted as a cache hit, stale hit or miss.
     */
    CompletableFuture<Entry> get(ProviderAddress address, Requester requester) {
        return dated(address, requester).thenApply(PulledAnswers.Pulled::value);
    }

    /** As {@link #get}, with when the list was fetched from the origin. */
    CompletableFuture<PulledAnswers.Pulled<Entry>> dated(ProviderAddress address, Requester requester) {
        return requester == Requester.MIRROR ? entries.getUncounted(address) : entries.get(address);
    }

    /** Where version lists come from: the cache directory, else the origin; a refresh may find another's. */
    private final class Lists implements PulledAnswers.Source<ProviderAddress, Entry> {

        @Override
        public Optional<PulledAnswers.Pulled<Entry>> stored(ProviderAddress address) {
            try {
                Optional<CacheDocuments.Dated<VersionList>> stored = documents.versionList(address);
                if (stored.isPresent()) {
                    return Optional.of(new PulledAnswers.Pulled<>(
                            entry(stored.get().value(), sightings.read(address)),
                            stored.get().storedAt()));
                }
            } catch (CacheDocuments.Unreadable e) {
                LOG.warn(
                        "the cached version list of {} is unreadable ({}); fetching it again",
                        address,
                        e.getCause().getMessage());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the cached version list of " + address, e);
            }
            return Optional.empty();
        }

        @Override
        public Entry pull(ProviderAddress address) {
            return fetch(address);
        }

        /**
         * The list another instance sharing the store keeps fresher than {@code known}, else the origin's unless
         * another instance holds the refresh lease (then empty: its list is looked for after the retry interval).
         */
        @Override
        public Optional<PulledAnswers.Pulled<Entry>> refreshed(
                ProviderAddress address,
                PulledAnswers.Pulled<Entry> known,
                Supplier<PulledAnswers.Pulled<Entry>> pull) {
            Optional<PulledAnswers.Pulled<Entry>> refreshedElsewhere = storedSince(address, known);
            if (refreshedElsewhere.isPresent()) {
                return refreshedElsewhere;
            }
            AtomicReference<PulledAnswers.Pulled<Entry>> fresh = new AtomicReference<>();
            refreshLease.runIfGranted(CacheLayout.versions(address), () -> fresh.set(pull.get()));
            return Optional.ofNullable(fresh.get());
        }
    }

    /**
     * The origin's spelling of {@code version}, as the version list in memory or in the cache directory gives it;
     * never asks the origin. Blocking: may read the cache directory.
     */
    Optional<String> cachedSpelling(ProviderAddress address, ProviderVersion version) {
        Optional<VersionList> list = entries.inMemory(address).map(Entry::list);
        if (list.isEmpty()) {
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
        return entry(
                fetched.list(),
                sightings.sighted(address, fetched.list().versions().keySet(), clock.instant()));
    }

    /**
     * Keeps, in the background, that the origin signed {@code version} of {@code address} at {@code at}, beside when
     * the mirror first saw it, so version lists weigh that too; nothing when it is known already.
     */
    void recordSigned(ProviderAddress address, ProviderVersion version, Instant at) {
        Optional<VersionSightings> known = entries.inMemory(address).flatMap(Entry::sightings);
        if (known.isEmpty() || at.equals(known.get().signed().get(version))) {
            return;
        }
        executor.execute(() -> sightings
                .signed(address, version, at)
                .ifPresent(updated -> entries.replaceIfPresent(address, current -> current.withSightings(updated))));
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
        return entry(new VersionList(entry.list().address(), kept), entry.sightings());
    }

    /**
     * The list in the store, when another instance sharing it stored one fresher than {@code known} that is not
     * stale yet; empty otherwise, or when it cannot be read (the refresh then asks the origin).
     */
    private Optional<PulledAnswers.Pulled<Entry>> storedSince(
            ProviderAddress address, PulledAnswers.Pulled<Entry> known) {
        try {
            return documents
                    .versionList(address)
                    .filter(stored -> stored.storedAt().isAfter(known.fetchedAt()))
                    .filter(stored -> !refreshes
                            || Duration.between(stored.storedAt(), clock.instant())
                                            .compareTo(ttl)
                                    <= 0)
                    .map(stored -> new PulledAnswers.Pulled<>(
                            entry(stored.value(), sightings.read(address)), stored.storedAt()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Renders {@code index.json} once, with only the versions the policy lets in. */
    private Entry entry(VersionList list, Optional<VersionSightings> sightings) {
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
            return new Entry(list, new RenderedDocument(JSON.writeValueAsBytes(root)), allowed, sightings);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
