package io.providermirror.upstream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
    private final Map<String, CompletableFuture<Discovered>> bases = new ConcurrentHashMap<>();

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
        CompletableFuture<Discovered> known = bases.get(hostname);
        if (known != null && usable(known) && known.isDone()) {
            // Known and fresh: no lock taken, whatever discoveries of other hosts are under way.
            return known.join().base();
        }
        if (bases.size() >= MAX_HOSTS) {
            bases.clear();
        }
        // Only the choice of who discovers happens inside the map; the discovery itself runs outside it, so a slow
        // origin holds up nobody but the callers waiting for that same host.
        CompletableFuture<Discovered> mine = new CompletableFuture<>();
        CompletableFuture<Discovered> shared =
                bases.compute(hostname, (host, current) -> current != null && usable(current) ? current : mine);
        if (shared == mine) {
            try {
                mine.complete(new Discovered(discover(hostname), System.nanoTime() + freshness.toNanos()));
            } catch (RuntimeException e) {
                bases.remove(hostname, mine);
                mine.completeExceptionally(e);
            }
        }
        try {
            return shared.join().base();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    /** A discovery under way, or one that answered and is still fresh. */
    private static boolean usable(CompletableFuture<Discovered> discovered) {
        if (!discovered.isDone()) {
            return true;
        }
        return !discovered.isCompletedExceptionally() && discovered.join().expiresAtNanos() - System.nanoTime() > 0;
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
