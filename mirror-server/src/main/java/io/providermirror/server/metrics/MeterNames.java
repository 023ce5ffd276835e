package io.providermirror.server.metrics;

/**
 * Every meter the mirror defines, with its tags, in one place; the README's metrics table and the shipped
 * dashboard and alert rules use the Prometheus names given here.
 */
public final class MeterNames {

    private MeterNames() {}

    /** Timer of answered requests; tags {@link #ROUTE}, {@link #STATUS}, {@link #CLIENT}. Prometheus: {@code mirror_http_requests_seconds}. */
    public static final String HTTP_REQUESTS = "mirror.http.requests";
    /** Counter of cache lookups; tags {@link #KIND}, {@link #RESULT}. Prometheus: {@code mirror_cache_lookups_total}. */
    public static final String CACHE_LOOKUPS = "mirror.cache.lookups";
    /**
     * Timer of logical origin requests (retries included); tags {@link #HOST}, {@link #OPERATION},
     * {@link #OUTCOME}. Prometheus: {@code mirror_upstream_requests_seconds}.
     */
    public static final String UPSTREAM_REQUESTS = "mirror.upstream.requests";
    /** Counter of archive bytes sent to clients; tag {@link #SOURCE}. Prometheus: {@code mirror_served_bytes_total}. */
    public static final String SERVED = "mirror.served";
    /** Counter of refused releases and archives; tags {@link #HOST}, {@link #REASON}. Prometheus: {@code mirror_verification_failures_total}. */
    public static final String VERIFICATION_FAILURES = "mirror.verification.failures";
    /**
     * Counter of releases accepted without a signature because their origin lists no key and the host's policy
     * allows that; tag {@link #HOST}. Prometheus: {@code mirror_unsigned_releases_total}.
     */
    public static final String UNSIGNED_RELEASES = "mirror.unsigned.releases";
    /** Gauge of the archive store's size. Prometheus: {@code mirror_cache_size_bytes}. */
    public static final String CACHE_SIZE = "mirror.cache.size";
    /** Gauge of cached archives. Prometheus: {@code mirror_cache_archives}. */
    public static final String CACHE_ARCHIVES = "mirror.cache.archives";
    /**
     * Gauge of cached archives' content held in memory for the hot path (small archives, within a bound of the heap).
     * Prometheus: {@code mirror_cache_held_bytes}.
     */
    public static final String CACHE_HELD = "mirror.cache.held";
    /** Counter of archives evicted to keep {@code cache.maxSize}. Prometheus: {@code mirror_cache_evictions_total}. */
    public static final String CACHE_EVICTIONS = "mirror.cache.evictions";
    /** Gauge of archive downloads from origins in progress. Prometheus: {@code mirror_fills_active}. */
    public static final String FILLS_ACTIVE = "mirror.fills.active";
    /**
     * Gauge of requests to origins waiting on their host's lane of a worker pool, by {@link #POOL}. Prometheus:
     * {@code mirror_origin_requests_waiting}.
     */
    public static final String ORIGIN_REQUESTS_WAITING = "mirror.origin.requests.waiting";
    /**
     * Counter of requests and connections refused to protect the mirror's resources; tags {@link #REASON}
     * ({@code fills}, {@code fills_per_host}, {@code disk}, {@code connections}, {@code origin_queue}) and
     * {@link #HOST} ({@code none} for connections). Prometheus: {@code mirror_refusals_total}.
     */
    public static final String REFUSALS = "mirror.refusals";
    /**
     * Counter of versions the release-age quarantine held back, or in dry-run mode would have; tags {@link #MODE}
     * ({@code enforce}, {@code dryRun}) and {@link #ANSWER} ({@code listing}: left out of a version list,
     * {@code request}: a direct request refused). Prometheus: {@code mirror_release_age_holds_total}.
     */
    public static final String RELEASE_AGE_HOLDS = "mirror.release.age.holds";
    /** Tag: how the release-age quarantine runs, {@code enforce} or {@code dryRun}. */
    public static final String MODE = "mode";
    /** Tag: which answer a release-age hold changed, {@code listing} or {@code request}. */
    public static final String ANSWER = "answer";
    /**
     * Counter of archive downloads abandoned because the origin sent too slowly ({@code too_slow}) or took longer
     * than {@code upstream.archiveTimeout} ({@code deadline}); tags {@link #HOST}, {@link #REASON}.
     * Prometheus: {@code mirror_fills_abandoned_total}.
     */
    public static final String FILLS_ABANDONED = "mirror.fills.abandoned";
    /**
     * Counter of fill-lease events of instances sharing an object store; tag {@link #OUTCOME}: {@code acquired},
     * {@code taken_over} (from a holder that let its lease expire), {@code waited} (another instance held it),
     * {@code committed_elsewhere} (a wait ended with another instance's commit), {@code wait_timeout},
     * {@code lost} (a renewal found the lease taken over). Prometheus: {@code mirror_fill_leases_total}.
     */
    public static final String FILL_LEASES = "mirror.fill.leases";
    /**
     * Gauge: 1 when fill leases exclude other instances, 0 when the store ignores conditional writes and the
     * fleet may fetch an archive more than once. Prometheus: {@code mirror_fill_leases_exclusive}.
     */
    public static final String FILL_LEASES_EXCLUSIVE = "mirror.fill.leases.exclusive";
    /**
     * Timer of requests to the bucket when {@code cache.s3} is set; tags {@link #OPERATION} ({@code get},
     * {@code head}, {@code put}, {@code copy}, {@code delete}, {@code list}, {@code multipart}) and {@link #OUTCOME}
     * ({@code ok}, {@code missing}, {@code error}). Prometheus: {@code mirror_store_requests_seconds}.
     */
    public static final String STORE_REQUESTS = "mirror.store.requests";
    /**
     * Counter of archive reads answered by the local tier in front of the bucket. Prometheus:
     * {@code mirror_store_local_tier_hits_total}.
     */
    public static final String STORE_LOCAL_TIER_HITS = "mirror.store.local.tier.hits";
    /**
     * Counter of metadata documents read from an instance's local copy because the bucket did not answer.
     * Prometheus: {@code mirror_store_local_copy_reads_total}.
     */
    public static final String STORE_LOCAL_COPY_READS = "mirror.store.local.copy.reads";
    /**
     * Counter of archive requests answered with a redirect to a presigned URL of the bucket's object
     * ({@code cache.s3.redirectArchives}). Prometheus: {@code mirror_store_redirects_total}.
     */
    public static final String STORE_REDIRECTS = "mirror.store.redirects";

    /** What was asked for: {@code index}, {@code version}, {@code archive}, {@code status}, {@code metrics}, ... */
    public static final String ROUTE = "route";
    /**
     * The name of the client a request came from ({@code auth.clients}, {@code token-<hash prefix>} for a plain
     * token), {@code anonymous} without an accepted token or with access control off, {@code other} for anything else.
     */
    public static final String CLIENT = "client";
    /** The HTTP status code. */
    public static final String STATUS = "status";
    /** {@code index}, {@code version} or {@code archive}. */
    public static final String KIND = "kind";
    /** {@code hit}, {@code stale} or {@code miss}. */
    public static final String RESULT = "result";
    /** The origin host contacted (at most {@link #MAX_HOSTS} distinct values, then {@code other}). */
    public static final String HOST = "host";
    /** Which worker pool: {@code io} (documents, module lookups) or {@code origin} (a release's parallel requests). */
    public static final String POOL = "pool";
    /** {@code discovery}, {@code versions}, {@code download}, {@code checksums}, {@code signature}, {@code archive}. */
    public static final String OPERATION = "operation";
    /** {@code success}, {@code not_found}, {@code timeout}, {@code error}. */
    public static final String OUTCOME = "outcome";
    /** {@code cache} (from disk) or {@code upstream} (followed while fetched). */
    public static final String SOURCE = "source";
    /** The verification check that failed, e.g. {@code signature}, {@code archive_hash}. */
    public static final String REASON = "reason";

    /**
     * Distinct host tag values kept before the rest are counted as {@code other}: host names come from request
     * paths, so without a bound anyone could create series without end.
     */
    public static final int MAX_HOSTS = 100;
}
