package io.providermirror.upstream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each origin hostname's {@code providers.v1} base URL, discovered once and then kept: in memory for the
 * freshness period, and in a {@link DiscoveryMemory} so that a discovery failure falls back to the last known URL.
 */
public final class ProviderBases {

    private static final Logger LOG = LoggerFactory.getLogger(ProviderBases.class);
    /**
     * A bound, as on every map keyed by what clients send; only hosts whose discovery answered enter it, so it is
     * not reached in practice, and past it the map simply starts over.
     */
    private static final int MAX_HOSTS = 10_000;

    private record Discovered(URI base, long expiresAtNanos) {}

    private final ServiceDiscovery discovery;
    private final DiscoveryMemory memory;
    private final Duration freshness;
    private final Map<String, Discovered> bases = new ConcurrentHashMap<>();

    public ProviderBases(ServiceDiscovery discovery, DiscoveryMemory memory, Duration freshness) {
        if (freshness.isZero() || freshness.isNegative()) {
            throw new IllegalArgumentException("freshness: " + freshness + " (expected: > 0)");
        }
        this.discovery = discovery;
        this.memory = memory;
        this.freshness = freshness;
    }

    /** The {@code providers.v1} base URL of {@code hostname}; concurrent callers share one discovery. */
    public URI providersBase(String hostname) {
        if (bases.size() >= MAX_HOSTS) {
            bases.clear();
        }
        // compute() runs the discovery once per host while other callers for the host wait for its result.
        return bases.compute(
                        hostname,
                        (host, known) -> known != null && known.expiresAtNanos() - System.nanoTime() > 0
                                ? known
                                : new Discovered(discover(host), System.nanoTime() + freshness.toNanos()))
                .base();
    }

    /** Where discovery for {@code hostname} is looked up, for error messages. */
    public URI discoveryUrl(String hostname) {
        return discovery.discoveryUrl(hostname);
    }

    private URI discover(String hostname) {
        try {
            URI base = discovery.providersBase(hostname);
            memory.write(hostname, base);
            return base;
        } catch (OriginException e) {
            Optional<URI> known = memory.read(hostname);
            if (e.reason() == OriginException.Reason.NOT_FOUND || known.isEmpty()) {
                throw e;
            }
            LOG.warn(
                    "service discovery for {} failed ({}); using the last known registry URL {}",
                    hostname,
                    e.getMessage(),
                    known.get());
            return known.get();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store the discovery result of " + hostname, e);
        }
    }
}
