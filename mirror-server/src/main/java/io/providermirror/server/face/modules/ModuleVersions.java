package io.providermirror.server.face.modules;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.ModuleOrigins;
import io.providermirror.server.core.PulledAnswers;
import io.providermirror.server.core.Sightings;
import io.providermirror.server.core.VersionSightings;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.HostLanes;
import io.providermirror.upstream.ModuleRegistryClient;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.verify.VerificationException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Modules' version lists, pulled through and cached as providers' are: read from memory, else the cache, else the
 * origin (one request however many callers); refreshed in the background once older than the TTL; the last good
 * list is served while a refresh runs and when it fails (stale-if-error): held by {@link PulledAnswers}, as
 * providers' lists are. Offline, only the cache answers. A list
 * holds each version the CLI tells apart once ({@link DistinctVersions}); a build-metadata twin an origin lists is
 * left out and counted ({@code module_version_twin}).
 */
final class ModuleVersions {

    private static final Logger LOG = LoggerFactory.getLogger(ModuleVersions.class);

    /** A module's versions in the origin's order, and when the mirror first saw each (if it knows). */
    record Entry(List<ProviderVersion> versions, Optional<VersionSightings> sightings) {}

    private final ModuleOrigins origins;
    private final CacheDocuments documents;
    private final Sightings sightings;
    private final boolean offline;
    private final MirrorMetrics metrics;
    private final Clock clock;
    private final PulledAnswers<ModuleAddress, Entry> memory;

    ModuleVersions(
            ModuleOrigins origins,
            CacheDocuments documents,
            Executor executor,
            HostLanes lanes,
            Clock clock,
            Duration ttl,
            boolean offline,
            MirrorMetrics metrics) {
        this.origins = origins;
        this.documents = documents;
        this.sightings = new Sightings(documents);
        this.offline = offline;
        this.metrics = metrics;
        this.clock = clock;
        // Bounded like every cache keyed by what clients send (10,000 lists); a list is small (a few dozen versions).
        this.memory = PulledAnswers.builder(new Lists(), executor, clock, ttl)
                .offline(offline)
                .pulledPerHost(lanes, ModuleAddress::hostname)
                .describedAs(address -> "the version list of module " + address)
                .counting(metrics, MirrorMetrics.LookupKind.MODULE_VERSIONS)
                .build();
    }

    /** Forgets the list memory holds for {@code address}: the next request reads the cache again. */
    void forget(ModuleAddress address) {
        memory.forget(address);
    }

    /** The list of {@code address} memory holds now, if any; never loads. */
    Optional<Entry> inMemory(ModuleAddress address) {
        return memory.inMemory(address);
    }

    /** The versions of {@code address}: fresh, stale (a refresh follows), or fetched now. */
    CompletableFuture<Entry> get(ModuleAddress address) {
        return memory.get(address).thenApply(PulledAnswers.Pulled::value);
    }

    /** Where module version lists come from: the cache directory, else the origin (never offline). */
    private final class Lists implements PulledAnswers.Source<ModuleAddress, Entry> {

        @Override
        public Optional<PulledAnswers.Pulled<Entry>> stored(ModuleAddress address) {
            try {
                return documents
                        .moduleVersionList(address)
                        .map(stored -> new PulledAnswers.Pulled<>(
                                new Entry(DistinctVersions.of(stored.value()).listed(), sightings.read(address)),
                                stored.storedAt()));
            } catch (CacheDocuments.Unreadable e) {
                // Its message names the list and what is wrong with it.
                LOG.warn("{}", e.getMessage());
                return Optional.empty();
            } catch (IOException e) {
                LOG.warn("cannot read the cached version list of module {}: {}", address, e.getMessage());
                return Optional.empty();
            }
        }

        /** The origin's list; its result replaces what the cache holds. */
        @Override
        public Entry pull(ModuleAddress address) {
            if (offline) {
                throw new OriginException(
                        OriginException.Reason.NOT_FOUND,
                        "module " + address + " is not in the cache and the mirror is offline (upstream.offline)");
            }
            ModuleRegistryClient.FetchedModuleVersions fetched =
                    origins.of(address.hostname()).versions(address);
            try {
                documents.writeModuleVersions(address, fetched.body());
            } catch (IOException e) {
                LOG.warn("cannot store the version list of module {}: {}", address, e.getMessage());
            }
            DistinctVersions distinct = DistinctVersions.of(fetched.versions());
            distinct.twins().forEach(twin -> twinListed(address, twin, distinct));
            return new Entry(distinct.listed(), sightings.sighted(address, distinct.listed(), clock.instant()));
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
}
