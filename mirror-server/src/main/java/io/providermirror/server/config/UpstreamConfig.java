package io.providermirror.server.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * How the mirror talks to origin registries, or, when {@code offline}, that it does not; and how much of the
 * mirror archive downloads may hold: {@code maxConcurrentFills} at once ({@code maxConcurrentFillsPerHost} per
 * origin host), each for at most {@code archiveTimeout}, and no slower than {@code minTransferRate} bytes per
 * second averaged over each {@code readTimeout}; requests to one origin host waiting for their lane of the worker
 * pools, {@code maxWaitingPerHost} at most; an archive that failed verification is refused again without
 * asking the origin for {@code verificationFailureTtl}. With {@code discoverAtStartup} (the default), the origins the
 * mirror expects requests for are asked for their discovery document once the listeners are up; with
 * {@code rehearseAtStartup} (the default), one cold provider is then run through a mirror of the mirror's own, on
 * 127.0.0.1 and a temporary directory, before any client's is.
 */
public record UpstreamConfig(
        Path trustedCertificates,
        Map<String, HostConfig> hosts,
        Duration connectTimeout,
        Duration requestTimeout,
        Duration readTimeout,
        Integer maxAttempts,
        Long maxArchiveBytes,
        Boolean offline,
        ProxyConfig proxy,
        Path terraformCredentials,
        Integer maxConcurrentFills,
        Integer maxConcurrentFillsPerHost,
        Integer maxWaitingPerHost,
        Duration archiveTimeout,
        DataSize minTransferRate,
        Duration verificationFailureTtl,
        Boolean discoverAtStartup,
        Boolean rehearseAtStartup) {

    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** Below the CLI's own ~10 s timeout for JSON requests, so a slow origin gives a clear error in time. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(8);
    /** An archive transfer that receives nothing for this long is ended. */
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(30);

    public static final int DEFAULT_MAX_ATTEMPTS = 3;
    public static final long DEFAULT_MAX_ARCHIVE_BYTES = 2L * 1024 * 1024 * 1024;
    /** Archive downloads at once: each holds a thread, a socket and a temporary file. */
    public static final int DEFAULT_MAX_CONCURRENT_FILLS = 64;
    /** Archive downloads at once from one origin host, so one origin (or its attacker) cannot take them all. */
    public static final int DEFAULT_MAX_CONCURRENT_FILLS_PER_HOST = 16;
    /**
     * Requests to one origin host (or to all hosts without a lane of their own) that may wait for their lane, in each
     * pool that fetches origins' documents: far more than a busy registry's cold items at once, and a few megabytes
     * of memory.
     */
    public static final int DEFAULT_MAX_WAITING_PER_HOST = 10_000;
    /** The longest an archive download may take: a 2 GiB archive at 1 MiB/s takes 35 minutes. */
    public static final Duration DEFAULT_ARCHIVE_TIMEOUT = Duration.ofHours(1);
    /** Bytes per second below which a download is abandoned (averaged over each readTimeout): a modem's pace. */
    public static final long DEFAULT_MIN_TRANSFER_RATE = 1024;
    /**
     * How long an archive that failed verification is refused again at once, without asking the origin: the CLI
     * retries a download several times, and each retry would fetch the same bad bytes again.
     */
    public static final Duration DEFAULT_VERIFICATION_FAILURE_TTL = Duration.ofMinutes(5);

    public UpstreamConfig {
        hosts = hosts == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(hosts));
        for (var entry : hosts.entrySet()) {
            if (!io.providermirror.model.ProviderAddress.isValidHostname(entry.getKey())) {
                throw new IllegalArgumentException(
                        "hosts: '" + entry.getKey()
                                + "' (expected: a lowercase hostname as it appears in provider addresses, e.g. registry.terraform.io)");
            }
            if (entry.getValue() == null) {
                throw new IllegalArgumentException(
                        "hosts." + entry.getKey() + ": empty (expected: settings such as discoveryUrl)");
            }
        }
        // One spelling per host, as provider addresses have it: registry.terraform.io:443 is registry.terraform.io.
        Map<String, HostConfig> normalised = new TreeMap<>();
        for (var entry : hosts.entrySet()) {
            String name = io.providermirror.model.ProviderAddress.normalizeHostname(entry.getKey());
            if (normalised.put(name, entry.getValue()) != null) {
                throw new IllegalArgumentException("hosts: '" + entry.getKey() + "' (expected: each host once; " + name
                        + " is configured twice, with and without its default port)");
            }
        }
        hosts = java.util.Collections.unmodifiableMap(normalised);
        connectTimeout = positive(connectTimeout, DEFAULT_CONNECT_TIMEOUT, "connectTimeout");
        requestTimeout = positive(requestTimeout, DEFAULT_REQUEST_TIMEOUT, "requestTimeout");
        readTimeout = positive(readTimeout, DEFAULT_READ_TIMEOUT, "readTimeout");
        offline = offline != null && offline;
        maxAttempts = maxAttempts == null ? DEFAULT_MAX_ATTEMPTS : maxAttempts;
        if (maxAttempts < 1 || maxAttempts > 10) {
            throw new IllegalArgumentException("maxAttempts: " + maxAttempts + " (expected: 1 to 10)");
        }
        maxArchiveBytes = maxArchiveBytes == null ? DEFAULT_MAX_ARCHIVE_BYTES : maxArchiveBytes;
        maxConcurrentFills = maxConcurrentFills == null ? DEFAULT_MAX_CONCURRENT_FILLS : maxConcurrentFills;
        if (maxConcurrentFills < 1 || maxConcurrentFills > 4096) {
            throw new IllegalArgumentException("maxConcurrentFills: " + maxConcurrentFills + " (expected: 1 to 4096)");
        }
        maxConcurrentFillsPerHost = maxConcurrentFillsPerHost == null
                ? Math.min(DEFAULT_MAX_CONCURRENT_FILLS_PER_HOST, maxConcurrentFills)
                : maxConcurrentFillsPerHost;
        if (maxConcurrentFillsPerHost < 1 || maxConcurrentFillsPerHost > maxConcurrentFills) {
            throw new IllegalArgumentException("maxConcurrentFillsPerHost: " + maxConcurrentFillsPerHost
                    + " (expected: 1 to maxConcurrentFills, " + maxConcurrentFills + ")");
        }
        maxWaitingPerHost = maxWaitingPerHost == null ? DEFAULT_MAX_WAITING_PER_HOST : maxWaitingPerHost;
        if (maxWaitingPerHost < 0 || maxWaitingPerHost > 1_000_000) {
            throw new IllegalArgumentException("maxWaitingPerHost: " + maxWaitingPerHost + " (expected: 0 to 1000000)");
        }
        archiveTimeout = positive(archiveTimeout, DEFAULT_ARCHIVE_TIMEOUT, "archiveTimeout");
        minTransferRate = minTransferRate == null ? new DataSize(DEFAULT_MIN_TRANSFER_RATE) : minTransferRate;
        verificationFailureTtl =
                verificationFailureTtl == null ? DEFAULT_VERIFICATION_FAILURE_TTL : verificationFailureTtl;
        if (verificationFailureTtl.isNegative()) {
            throw new IllegalArgumentException(
                    "verificationFailureTtl: " + verificationFailureTtl + " (expected: >= 0; 0 remembers nothing)");
        }
        discoverAtStartup = discoverAtStartup == null || discoverAtStartup;
        rehearseAtStartup = rehearseAtStartup == null || rehearseAtStartup;
        if (maxArchiveBytes <= 0) {
            throw new IllegalArgumentException("maxArchiveBytes: " + maxArchiveBytes + " (expected: > 0)");
        }
    }

    private static Duration positive(Duration value, Duration fallback, String key) {
        Duration result = value == null ? fallback : value;
        if (result.isZero() || result.isNegative()) {
            throw new IllegalArgumentException(key + ": " + result + " (expected: > 0)");
        }
        return result;
    }
}
