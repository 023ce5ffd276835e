package io.providermirror.server.report;

import java.time.Instant;
import java.util.List;

/**
 * What a running mirror reports about itself at one moment: what the status page shows, and what {@code GET
 * /api/v1/status} and {@code /status.json} answer. Times are instants (never null where the JSON always has them);
 * URLs are without their query strings.
 *
 * @param version          the mirror's version
 * @param startedAt        when it started
 * @param offline          whether it contacts no origin ({@code upstream.offline})
 * @param accessControlled whether clients need a token ({@code auth.tokens})
 * @param cache            what the cache holds, and how often it answered
 * @param origins          each origin contacted or configured, by hostname
 * @param problems         the recent problems of every origin, newest first
 * @param lastHour         the last hour's traffic, a minute each, oldest first
 * @param providers        the cached providers, by address
 * @param modules          the cached module versions, by address and version
 * @param clients          the configured clients, in the order configured, with when each was last seen
 * @param policy           the policy's rules, with what each holds back now
 * @param mostRequested    the items of the usage inventory requested most, most first
 */
public record MirrorStatus(
        String version,
        Instant startedAt,
        boolean offline,
        boolean accessControlled,
        Cache cache,
        List<Origin> origins,
        List<Problem> problems,
        List<Minute> lastHour,
        List<Provider> providers,
        List<Module> modules,
        List<ClientStatus> clients,
        PolicyStatus policy,
        List<UsageStatus> mostRequested) {

    public MirrorStatus {
        origins = List.copyOf(origins);
        problems = List.copyOf(problems);
        lastHour = List.copyOf(lastHour);
        providers = List.copyOf(providers);
        modules = List.copyOf(modules);
        clients = List.copyOf(clients);
        mostRequested = List.copyOf(mostRequested);
    }

    /** What the cache holds, and how many lookups it answered ({@code lookupsFromCache}, fresh or stale). */
    public record Cache(
            long providers,
            long providerArchives,
            long moduleVersions,
            long bytes,
            long lookupsFromCache,
            long lookupsTotal) {}

    /**
     * One origin: where it is reached when configured (else null), and its health; {@code used} is false for a
     * configured origin not contacted since start-up (the counts are then 0 and the times null).
     */
    public record Origin(
            String origin,
            String reachedAt,
            boolean used,
            boolean healthy,
            long requestsOk,
            long requestsFailed,
            long refusedByVerification,
            Instant lastSuccess,
            Instant lastFailure,
            String lastFailureMessage,
            List<String> contacted) {

        public Origin {
            contacted = List.copyOf(contacted);
        }

        /** {@code healthy}, {@code failing} or {@code not used yet}. */
        public String health() {
            return !used ? "not used yet" : healthy ? "healthy" : "failing";
        }
    }

    /** One problem: when it last happened, with which origin, for what (null if not known), and how often. */
    public record Problem(Instant lastSeen, String origin, String subject, String what, long count) {}

    /** One minute's traffic: provider lookups, those answered from the cache, archive bytes served. */
    public record Minute(Instant start, long requests, long hits, long bytes) {}

    /** A cached provider: its versions, newest first, each with its cached platforms; its size and last fill. */
    public record Provider(String address, List<Version> versions, long bytes, Instant lastFetched) {

        public Provider {
            versions = List.copyOf(versions);
        }

        /** How many archives of it are cached. */
        public long archives() {
            return versions.stream().mapToLong(v -> v.platforms().size()).sum();
        }
    }

    /** A cached provider version (canonical) and its cached platforms, sorted. */
    public record Version(String version, List<String> platforms) {

        public Version {
            platforms = List.copyOf(platforms);
        }
    }

    /** A cached module version, with what it is pinned by ({@code sourceKind}: {@code git} or {@code archive}). */
    public record Module(
            String address,
            String version,
            String sourceKind,
            String source,
            String pinnedBy,
            long bytes,
            Instant pinnedAt) {}
}
