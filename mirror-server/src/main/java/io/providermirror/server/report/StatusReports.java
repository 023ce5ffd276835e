package io.providermirror.server.report;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobSummary;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.model.Urls;
import io.providermirror.server.BuildInfo;
import io.providermirror.server.access.Client;
import io.providermirror.server.access.ClientSightings;
import io.providermirror.server.face.modules.ModuleMirror;
import io.providermirror.server.face.modules.StoredModule;
import io.providermirror.server.inventory.InventoryQuery;
import io.providermirror.server.inventory.UsageInventory;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.metrics.OriginHealth;
import io.providermirror.server.providers.ProviderMirror;
import io.providermirror.server.providers.Releases;
import io.providermirror.upstream.verify.VerifiedPackage;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The one place the mirror's status is made, from the store's index, the provider path, the modules face and the
 * meters, the clients' sightings, the usage inventory and the policy: {@link #status()} for the status page,
 * {@code /status.json} and {@code GET /api/v1/status}, {@link #clients()} for {@code GET /api/v1/clients}, {@link
 * #provider} for one provider's view. Blocking (lists the store's index, reads verified releases): call it off the
 * event loop.
 */
public final class StatusReports {

    /** How many recent problems the status keeps (older ones are dropped). */
    public static final int RECENT_PROBLEMS = OriginHealth.RECENT_PROBLEMS;
    /** How many of the inventory's items the status lists, those requested most. */
    public static final int MOST_REQUESTED = 10;

    private final BlobStore store;
    private final MirrorMetrics metrics;
    private final ProviderMirror mirror;
    private final ModuleMirror modules;
    private final Map<String, String> configuredOrigins;
    private final Instant started;
    private final ClientSightings sightings;
    private final UsageInventory inventory;
    private final Supplier<PolicyStatus> policy;

    /**
     * @param configuredOrigins configured origins by hostname, each with where it is reached (as the banner says it)
     * @param sightings         when this instance last saw each configured client
     * @param inventory         the usage inventory, which also keeps when the other instances last saw each client
     * @param policy            the policy's rules with what each holds back now
     */
    public StatusReports(
            BlobStore store,
            MirrorMetrics metrics,
            ProviderMirror mirror,
            ModuleMirror modules,
            Map<String, String> configuredOrigins,
            Clock clock,
            ClientSightings sightings,
            UsageInventory inventory,
            Supplier<PolicyStatus> policy) {
        this.sightings = sightings;
        this.inventory = inventory;
        this.policy = policy;
        this.store = store;
        this.metrics = metrics;
        this.mirror = mirror;
        this.modules = modules;
        this.configuredOrigins = Map.copyOf(configuredOrigins);
        this.started = clock.instant();
    }

    /** The mirror's status now. */
    public MirrorStatus status() {
        List<BlobSummary> blobs = store.list();
        List<MirrorStatus.Provider> providers = providers(blobs);
        List<MirrorStatus.Module> cachedModules = modules();
        long fromCache = (long)
                (metrics.lookups(MirrorMetrics.LookupResult.HIT) + metrics.lookups(MirrorMetrics.LookupResult.STALE));
        long lookups = fromCache + (long) metrics.lookups(MirrorMetrics.LookupResult.MISS);
        MirrorStatus.Cache cache = new MirrorStatus.Cache(
                providers.size(),
                providers.stream().mapToLong(MirrorStatus.Provider::archives).sum(),
                cachedModules.size(),
                store.totalBytes(),
                fromCache,
                lookups);
        return new MirrorStatus(
                BuildInfo.VERSION,
                started,
                mirror.offline(),
                mirror.accessControlled(),
                cache,
                origins(),
                metrics.originHealth().recentProblems().stream()
                        .map(p -> new MirrorStatus.Problem(p.time(), p.origin(), p.subject(), p.what(), p.count()))
                        .toList(),
                metrics.traffic().lastHour().stream()
                        .map(m -> new MirrorStatus.Minute(m.start(), m.requests(), m.hits(), m.bytes()))
                        .toList(),
                providers,
                cachedModules,
                clients(),
                policy.get(),
                UsageStatus.of(InventoryQuery.top(inventory.recent(), MOST_REQUESTED)));
    }

    /**
     * Every configured client, in the order configured, with when it was last seen anywhere in the fleet: this
     * instance's sighting, or a later one another instance wrote in its inventory shard (as of the last read).
     */
    public List<ClientStatus> clients() {
        Map<String, Instant> fleet = inventory.clientsLastSeen();
        List<ClientStatus> clients = new ArrayList<>();
        for (Client client : sightings.all().keySet()) {
            clients.add(new ClientStatus(
                    client.name(),
                    client.scope().hosts(),
                    client.scope().namespaces(),
                    client.scope().describe(),
                    fleet.get(client.name())));
        }
        return clients;
    }

    /** Every origin contacted since start-up or configured, by hostname. */
    private List<MirrorStatus.Origin> origins() {
        Map<String, OriginHealth.Snapshot> seen = new TreeMap<>();
        metrics.originHealth().snapshot().forEach(origin -> seen.put(origin.origin(), origin));
        TreeSet<String> names = new TreeSet<>(seen.keySet());
        names.addAll(configuredOrigins.keySet());
        List<MirrorStatus.Origin> origins = new ArrayList<>();
        for (String name : names) {
            String where = configuredOrigins.get(name);
            String reachedAt = where == null ? null : Urls.redactedIn(where);
            OriginHealth.Snapshot s = seen.get(name);
            origins.add(
                    s == null
                            ? new MirrorStatus.Origin(
                                    name, reachedAt, false, true, 0, 0, 0, null, null, null, List.of())
                            : new MirrorStatus.Origin(
                                    name,
                                    reachedAt,
                                    true,
                                    s.healthy(),
                                    s.succeeded(),
                                    s.failed(),
                                    s.refused(),
                                    s.lastSuccess(),
                                    s.lastFailure(),
                                    s.lastFailureMessage(),
                                    s.contacted()));
        }
        return origins;
    }

    private List<MirrorStatus.Module> modules() {
        return modules.storedModules().stream()
                .sorted(Comparator.comparing((StoredModule m) -> m.address().toString())
                        .thenComparing(StoredModule::version))
                .map(m -> new MirrorStatus.Module(
                        m.address().toString(),
                        m.version().toString(),
                        m.pin().kind().equals("GIT") ? "git" : "archive",
                        m.pin().source(),
                        m.pin().identity(),
                        m.archiveBytes(),
                        m.pin().pinnedAt()))
                .toList();
    }

    /** Cached providers by address, from keys {@code <hostname>/<namespace>/<type>/<version>/<archive>}. */
    static List<MirrorStatus.Provider> providers(List<BlobSummary> blobs) {
        Map<String, Map<ProviderVersion, Map<Platform, BlobSummary>>> byAddress = new TreeMap<>();
        for (BlobSummary blob : blobs) {
            archiveOf(blob)
                    .ifPresent(archive -> byAddress
                            .computeIfAbsent(
                                    archive.address().toString(), a -> new TreeMap<>(Comparator.reverseOrder()))
                            .computeIfAbsent(archive.version(), v -> new TreeMap<>())
                            .put(archive.platform(), blob));
        }
        List<MirrorStatus.Provider> providers = new ArrayList<>();
        byAddress.forEach((address, versions) -> {
            long bytes = 0;
            Instant lastFetched = Instant.EPOCH;
            List<MirrorStatus.Version> listed = new ArrayList<>();
            for (Map.Entry<ProviderVersion, Map<Platform, BlobSummary>> version : versions.entrySet()) {
                for (BlobSummary blob : version.getValue().values()) {
                    bytes += blob.size();
                    lastFetched = blob.committedAt().isAfter(lastFetched) ? blob.committedAt() : lastFetched;
                }
                listed.add(new MirrorStatus.Version(
                        version.getKey().canonical(),
                        version.getValue().keySet().stream()
                                .map(Platform::toString)
                                .sorted()
                                .toList()));
            }
            providers.add(new MirrorStatus.Provider(address, listed, bytes, lastFetched));
        });
        return providers;
    }

    /**
     * One provider's cached versions, newest first, with every platform of each verified release, cached or not;
     * empty when nothing of it is cached.
     */
    public Optional<ProviderStatus> provider(ProviderAddress address) {
        Map<ProviderVersion, Map<Platform, BlobSummary>> cached = new TreeMap<>(Comparator.reverseOrder());
        for (BlobSummary blob : store.list()) {
            archiveOf(blob)
                    .filter(archive -> archive.address().equals(address))
                    .ifPresent(archive -> cached.computeIfAbsent(archive.version(), v -> new TreeMap<>())
                            .put(archive.platform(), blob));
        }
        if (cached.isEmpty()) {
            return Optional.empty();
        }
        List<ProviderStatus.Version> versions = new ArrayList<>();
        cached.forEach((version, archives) -> versions.add(version(address, version, archives)));
        return Optional.of(new ProviderStatus(address.toString(), versions));
    }

    private ProviderStatus.Version version(
            ProviderAddress address, ProviderVersion version, Map<Platform, BlobSummary> archives) {
        Optional<Releases.Stored> stored = mirror.storedRelease(address, version);
        if (stored.isEmpty()) {
            return new ProviderStatus.Version(version.canonical(), false, null, List.of(), List.of());
        }
        Releases.Stored release = stored.get();
        TreeSet<String> keys = new TreeSet<>();
        List<ProviderStatus.Platform> platforms = new ArrayList<>();
        for (VerifiedPackage pkg : release.release().packages().values()) {
            keys.add(pkg.signingKeyId());
            BlobSummary blob = archives.get(pkg.platform());
            platforms.add(new ProviderStatus.Platform(
                    pkg.platform().toString(),
                    blob != null,
                    blob == null ? 0 : blob.size(),
                    blob == null ? null : blob.committedAt(),
                    hashes(pkg, release.h1().get(pkg.platform()))));
        }
        return new ProviderStatus.Version(
                version.canonical(), true, release.verifiedAt(), List.copyOf(keys), platforms);
    }

    private static List<String> hashes(VerifiedPackage pkg, String h1) {
        List<String> hashes = new ArrayList<>();
        if (h1 != null) {
            hashes.add(h1);
        }
        pkg.h1().stream().filter(hash -> !hashes.contains(hash)).forEach(hashes::add);
        if (pkg.sha256() != null) {
            hashes.add("zh:" + pkg.sha256());
        }
        return hashes;
    }

    /** A cached provider archive: its address, version and platform, read from its key. */
    private record Archive(ProviderAddress address, ProviderVersion version, Platform platform) {}

    /** The archive a blob is, from {@code <hostname>/<namespace>/<type>/<version>/terraform-provider-...zip}. */
    private static Optional<Archive> archiveOf(BlobSummary blob) {
        List<String> segments = blob.key().segments();
        if (segments.size() != 5) {
            return Optional.empty();
        }
        String type = segments.get(2);
        Optional<ProviderVersion> version = ProviderVersion.parse(segments.get(3));
        Optional<Platform> platform = platformOf(type, segments.get(3), segments.get(4));
        if (version.isEmpty() || platform.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Archive(
                    new ProviderAddress(segments.get(0), segments.get(1), type), version.get(), platform.get()));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The platform of an archive file {@code terraform-provider-<type>_<version>_<os>_<arch>.zip}, if it is one. */
    static Optional<Platform> platformOf(String type, String version, String file) {
        String prefix = "terraform-provider-" + type + "_" + version + "_";
        if (!file.startsWith(prefix) || !file.endsWith(".zip")) {
            return Optional.empty();
        }
        try {
            return Optional.of(Platform.parse(file.substring(prefix.length(), file.length() - ".zip".length())));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
