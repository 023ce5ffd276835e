package io.providermirror.server.metrics;

import com.github.benmanes.caffeine.cache.AsyncCache;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.cache.CaffeineCacheMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.providermirror.cache.BlobStore;
import io.providermirror.cache.FillRegistry;
import io.providermirror.upstream.OriginObserver;
import io.providermirror.upstream.verify.VerificationException;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The mirror's own measurements, recorded through one object: cache lookups, origin requests (also kept
 * per host in {@link OriginHealth}), archive bytes served, verification failures, answered requests, and
 * gauges over the archive store and the fills in progress. Names and tags are those of {@link MeterNames}.
 */
public final class MirrorMetrics implements OriginObserver {

    /** What a cache lookup was for. */
    public enum LookupKind {
        INDEX,
        VERSION,
        ARCHIVE,
        MODULE_VERSIONS,
        MODULE_ARCHIVE
    }

    /** How a cache lookup ended: answered from the cache, answered from a cache that is due a refresh, or from the origin. */
    public enum LookupResult {
        HIT,
        STALE,
        MISS
    }

    /** Where an archive's bytes came from. */
    public enum Source {
        CACHE,
        UPSTREAM
    }

    /** The public registries every mirror may serve: their series exist from the start. */
    public static final List<String> PUBLIC_REGISTRIES = List.of("registry.terraform.io", "registry.opentofu.org");

    private static final Duration[] UPSTREAM_BUCKETS = seconds(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30);
    private static final Duration[] REQUEST_BUCKETS = seconds(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60);

    private record UpstreamKey(String host, Operation operation, Outcome outcome) {}

    private record RequestKey(String route, int status, String client) {}

    /** The client name of requests without an accepted token, or of every request while access control is off. */
    public static final String ANONYMOUS = "anonymous";

    private final MeterRegistry registry;
    private final OriginHealth originHealth;
    private final TrafficHistory traffic;
    private final BoundedTagValues upstreamHosts = new BoundedTagValues(MeterNames.MAX_HOSTS);
    private final BoundedTagValues verificationHosts = new BoundedTagValues(MeterNames.MAX_HOSTS);
    private final Map<LookupKind, Map<LookupResult, Counter>> lookups = new EnumMap<>(LookupKind.class);
    private final Map<Source, Counter> served = new EnumMap<>(Source.class);
    private final ConcurrentHashMap<UpstreamKey, Timer> upstream = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<RequestKey, Timer> requests = new ConcurrentHashMap<>();
    private volatile BoundedTagValues clients = BoundedTagValues.only(List.of(ANONYMOUS));

    public MirrorMetrics(MeterRegistry registry, Clock clock) {
        this.registry = registry;
        this.originHealth = new OriginHealth(clock);
        this.traffic = new TrafficHistory(clock);
        for (LookupKind kind : LookupKind.values()) {
            Map<LookupResult, Counter> byResult = new EnumMap<>(LookupResult.class);
            for (LookupResult result : LookupResult.values()) {
                byResult.put(
                        result,
                        Counter.builder(MeterNames.CACHE_LOOKUPS)
                                .description(
                                        "Requests for version lists, version documents and archives, by how the cache answered")
                                .tag(MeterNames.KIND, tagValue(kind))
                                .tag(MeterNames.RESULT, tagValue(result))
                                .register(registry));
            }
            lookups.put(kind, byResult);
        }
        for (Source source : Source.values()) {
            served.put(
                    source,
                    Counter.builder(MeterNames.SERVED)
                            .description("Archive bytes sent to clients, by where they came from")
                            .baseUnit(BaseUnits.BYTES)
                            .tag(MeterNames.SOURCE, tagValue(source))
                            .register(registry));
        }
        // Exported from the start (at 0), so dashboards and the alert on holds read a series before the first hold.
        for (String mode : List.of("enforce", "dryRun")) {
            for (String answer : List.of("listing", "request")) {
                releaseAgeHolds(mode, answer);
            }
        }
    }

    /** Metrics into a registry nobody scrapes, for tests and tools that need the object but not the numbers. */
    public static MirrorMetrics discarding() {
        return new MirrorMetrics(new SimpleMeterRegistry(), Clock.systemUTC());
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** Each origin host's recent health, fed by the same reports as the upstream meters. */
    public OriginHealth originHealth() {
        return originHealth;
    }

    /** Requests, hits and bytes served per minute over the last hour, for the status page's chart. */
    public TrafficHistory traffic() {
        return traffic;
    }

    public void cacheLookup(LookupKind kind, LookupResult result) {
        lookups.get(kind).get(result).increment();
        traffic.lookup(result != LookupResult.MISS);
    }

    /** Lookups so far of every kind that ended with {@code result}. */
    public double lookups(LookupResult result) {
        double total = 0;
        for (Map<LookupResult, Counter> byResult : lookups.values()) {
            total += byResult.get(result).count();
        }
        return total;
    }

    public void served(Source source, long bytes) {
        if (bytes > 0) {
            served.get(source).increment((double) bytes);
            traffic.served(bytes);
        }
    }

    /** An archive request answered with a redirect to the bucket's copy ({@code cache.s3.redirectArchives}). */
    public void archiveRedirected() {
        redirectCounter(registry).increment();
    }

    static Counter redirectCounter(MeterRegistry registry) {
        return Counter.builder(MeterNames.STORE_REDIRECTS)
                .description("archive requests answered with a redirect to a presigned URL of the bucket's object")
                .register(registry);
    }

    /**
     * Registers, at zero, the per-host counters of {@code hosts} for every known label value, so that every series
     * the dashboard and the alert rules read exists from the first scrape (not only after the first failure).
     */
    public void expectHosts(Collection<String> hosts) {
        for (String host : hosts) {
            for (VerificationException.Check check : VerificationException.Check.values()) {
                verificationFailures(host, check.name());
            }
            unsignedReleases(host);
        }
    }

    /**
     * A release or archive from {@code host} (the provider's origin hostname) was refused because {@code check}
     * failed; {@code subject} names what was refused (provider, version, platform), {@code detail} says how it
     * failed. Counted for the meters and, with the details, for the status page.
     */
    public void verificationFailure(String host, String check, String subject, String detail) {
        verificationFailures(host, check).increment();
        originHealth.verificationFailed(host, subject, check.toLowerCase(Locale.ROOT), detail);
    }

    private Counter verificationFailures(String host, String check) {
        return Counter.builder(MeterNames.VERIFICATION_FAILURES)
                .description("Releases and archives refused because a verification check failed")
                .tag(MeterNames.HOST, verificationHosts.value(host))
                .tag(MeterNames.REASON, check.toLowerCase(Locale.ROOT))
                .register(registry);
    }

    /**
     * A request or connection was refused to protect the mirror's resources, for {@code reason} (fills,
     * fills_per_host, disk, connections); {@code host} is the provider's origin host, or null.
     */
    public void refused(String reason, String host) {
        Counter.builder(MeterNames.REFUSALS)
                .description("Requests and connections refused to protect the mirror's threads, disk and sockets")
                .tag(MeterNames.HOST, host == null ? "none" : upstreamHosts.value(host))
                .tag(MeterNames.REASON, reason)
                .register(registry)
                .increment();
    }

    /** The release-age quarantine held a version back (or would have, in {@code mode} dryRun) from {@code answer}. */
    public void releaseAgeHeld(String mode, String answer) {
        releaseAgeHolds(mode, answer).increment();
    }

    private Counter releaseAgeHolds(String mode, String answer) {
        return Counter.builder(MeterNames.RELEASE_AGE_HOLDS)
                .description("Versions the release-age quarantine held back (or would have, in dry-run mode)")
                .tag(MeterNames.MODE, mode)
                .tag(MeterNames.ANSWER, answer)
                .register(registry);
    }

    /** An archive download from {@code host} was abandoned: too slow, or past its deadline. */
    public void fillAbandoned(String host, String reason) {
        Counter.builder(MeterNames.FILLS_ABANDONED)
                .description("Archive downloads abandoned because the origin sent too slowly or for too long")
                .tag(MeterNames.HOST, upstreamHosts.value(host))
                .tag(MeterNames.REASON, reason)
                .register(registry)
                .increment();
    }

    /** A release from {@code host} was accepted without a signature, as its policy allows. */
    public void unsignedRelease(String host) {
        unsignedReleases(host).increment();
    }

    private Counter unsignedReleases(String host) {
        return Counter.builder(MeterNames.UNSIGNED_RELEASES)
                .description(
                        "Releases accepted without a signature: their origin lists no key and the host's policy allows it")
                .tag(MeterNames.HOST, verificationHosts.value(host))
                .register(registry);
    }

    /**
     * The client names the request meter's {@code client} tag takes (besides {@code anonymous}); any other name is
     * counted as {@code other}, so the tag has at most as many values as clients are configured, plus two.
     */
    public void expectClients(Collection<String> names) {
        List<String> values = new java.util.ArrayList<>(names);
        values.add(ANONYMOUS);
        clients = BoundedTagValues.only(values);
    }

    /** One answered request, from the client named {@code client}. */
    public void httpRequest(String route, int status, String client, long durationNanos) {
        requests.computeIfAbsent(
                        new RequestKey(route, status, clients.value(client)),
                        key -> Timer.builder(MeterNames.HTTP_REQUESTS)
                                .description("Requests answered by the mirror, by route, status and client")
                                .tag(MeterNames.ROUTE, key.route())
                                .tag(MeterNames.STATUS, Integer.toString(key.status()))
                                .tag(MeterNames.CLIENT, key.client())
                                .serviceLevelObjectives(REQUEST_BUCKETS)
                                .register(registry))
                .record(durationNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void requestCompleted(
            String origin, String host, Operation operation, Outcome outcome, Duration latency, String failure) {
        // The status page knows origins by their hostname; the meter's host tag stays the authority contacted.
        originHealth.requestCompleted(origin, host, operation, outcome, latency, failure);
        upstream.computeIfAbsent(
                        new UpstreamKey(upstreamHosts.value(host), operation, outcome),
                        key -> Timer.builder(MeterNames.UPSTREAM_REQUESTS)
                                .description("Requests to origins (retries included), by host, operation and outcome")
                                .tag(MeterNames.HOST, key.host())
                                .tag(MeterNames.OPERATION, tagValue(key.operation()))
                                .tag(MeterNames.OUTCOME, tagValue(key.outcome()))
                                .serviceLevelObjectives(UPSTREAM_BUCKETS)
                                .register(registry))
                .record(latency);
    }

    /** Gauges over the archive store and the fills in progress. */
    public void bindStore(BlobStore store, FillRegistry fills) {
        Gauge.builder(MeterNames.CACHE_SIZE, store, BlobStore::totalBytes)
                .description("Bytes of archives in the cache")
                .baseUnit(BaseUnits.BYTES)
                .register(registry);
        Gauge.builder(MeterNames.CACHE_ARCHIVES, store, BlobStore::count)
                .description("Archives in the cache")
                .register(registry);
        Gauge.builder(MeterNames.CACHE_HELD, store, BlobStore::heldBytes)
                .description("Bytes of cached archives' content held in memory for the hot path")
                .baseUnit(BaseUnits.BYTES)
                .register(registry);
        FunctionCounter.builder(MeterNames.CACHE_EVICTIONS, store, BlobStore::evictions)
                .description("Archives evicted to keep cache.maxSize")
                .register(registry);
        Gauge.builder(MeterNames.FILLS_ACTIVE, fills, FillRegistry::size)
                .description("Archive downloads from origins in progress")
                .register(registry);
    }

    /**
     * How many requests to origins wait on their host's lane of the worker pool {@code pool} (an origin using its
     * whole share: slow or hanging, or asked for much at once), and the requests its full lanes refuse, counted as
     * refusals ({@code origin_queue}) by host.
     */
    public void bindLanes(String pool, io.providermirror.upstream.HostLanes lanes) {
        Gauge.builder(MeterNames.ORIGIN_REQUESTS_WAITING, lanes, io.providermirror.upstream.HostLanes::waiting)
                .description("Requests to origins waiting for their host's share of a worker pool")
                .tag(MeterNames.POOL, pool)
                .register(registry);
        lanes.onRefusal(host -> refused("origin_queue", host));
    }

    /** A fill-lease event; {@code outcome} is one of those {@link MeterNames#FILL_LEASES} lists. */
    public void fillLease(String outcome) {
        Counter.builder(MeterNames.FILL_LEASES)
                .description("Fill-lease events of instances sharing an object store, by outcome")
                .tag(MeterNames.OUTCOME, outcome)
                .register(registry)
                .increment();
    }

    /** Whether the fill leases exclude other instances (1) or are advisory (0). */
    public void bindFillLeases(io.providermirror.cache.FillLeases leases) {
        Gauge.builder(MeterNames.FILL_LEASES_EXCLUSIVE, leases, l -> l.exclusive() ? 1 : 0)
                .description("1 when fill leases exclude other instances; 0 when the store ignores conditional writes")
                .register(registry);
    }

    /** Caffeine's own statistics for one of the mirror's in-memory caches (built with {@code recordStats()}). */
    public <K, V> void monitor(AsyncCache<K, V> cache, String name) {
        CaffeineCacheMetrics.monitor(registry, cache, name);
    }

    private static String tagValue(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    private static Duration[] seconds(double... values) {
        Duration[] durations = new Duration[values.length];
        for (int i = 0; i < values.length; i++) {
            durations[i] = Duration.ofNanos((long) (values[i] * 1e9));
        }
        return durations;
    }
}
