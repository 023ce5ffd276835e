package io.providermirror.upstream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each origin host's service base URLs ({@code providers.v1}, {@code modules.v1}), from one discovery document per
 * host, fetched once for all its services and then kept: in memory for the freshness period, and in a
 * {@link DiscoveryMemory} so that a discovery failure falls back to the last known URL of each service.
 */
public final class ServiceBases {

    private static final Logger LOG = LoggerFactory.getLogger(ServiceBases.class);
    /**
     * A bound, as on every map keyed by what clients send; only hosts whose discovery answered stay in it, so it is
     * not reached in practice, and past it the map simply starts over.
     */
    private static final int MAX_HOSTS = 10_000;

    /**
     * What one discovery of a host gave: a base URL for each service it offers (or that is remembered while
     * discovery fails), and for the others why not.
     */
    private record Discovered(
            Map<RegistryService, URI> bases, Map<RegistryService, OriginException> failures, long expiresAtNanos) {

        URI base(RegistryService service) {
            URI base = bases.get(service);
            if (base == null) {
                throw failures.get(service);
            }
            return base;
        }
    }

    private final ServiceDiscovery discovery;
    private final DiscoveryMemory memory;
    private final Duration freshness;
    private final Map<String, CompletableFuture<Discovered>> hosts = new ConcurrentHashMap<>();

    public ServiceBases(ServiceDiscovery discovery, DiscoveryMemory memory, Duration freshness) {
        if (freshness.isZero() || freshness.isNegative()) {
            throw new IllegalArgumentException("freshness: " + freshness + " (expected: > 0)");
        }
        this.discovery = discovery;
        this.memory = memory;
        this.freshness = freshness;
    }

    /**
     * The base URL of {@code service} at {@code hostname}; concurrent callers share one discovery, whichever
     * services they ask for. A failure is not kept: the next caller discovers again.
     */
    public URI base(String hostname, RegistryService service) {
        CompletableFuture<Discovered> known = hosts.get(hostname);
        if (known != null && known.isDone() && answers(known, service)) {
            // Known and fresh: no lock taken, whatever discoveries of other hosts are under way.
            return known.join().base(service);
        }
        if (hosts.size() >= MAX_HOSTS) {
            hosts.clear();
        }
        // Only the choice of who discovers happens inside the map; the discovery itself runs outside it, so a slow
        // origin holds up nobody but the callers waiting for that same host.
        CompletableFuture<Discovered> mine = new CompletableFuture<>();
        CompletableFuture<Discovered> shared = hosts.compute(
                hostname, (host, current) -> current != null && answers(current, service) ? current : mine);
        if (shared == mine) {
            try {
                Discovered discovered = discover(hostname);
                if (discovered.bases().isEmpty()) {
                    hosts.remove(hostname, mine);
                }
                mine.complete(discovered);
            } catch (RuntimeException e) {
                hosts.remove(hostname, mine);
                mine.completeExceptionally(e);
            }
        }
        try {
            return shared.join().base(service);
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    /** A discovery under way, or one that gave {@code service} a base URL and is still fresh. */
    private static boolean answers(CompletableFuture<Discovered> discovered, RegistryService service) {
        if (!discovered.isDone()) {
            return true;
        }
        if (discovered.isCompletedExceptionally()) {
            return false;
        }
        Discovered known = discovered.join();
        return known.bases().containsKey(service) && known.expiresAtNanos() - System.nanoTime() > 0;
    }

    /** Where discovery for {@code hostname} is looked up, for error messages. */
    public URI discoveryUrl(String hostname) {
        return discovery.discoveryUrl(hostname);
    }

    private Discovered discover(String hostname) {
        Map<RegistryService, URI> bases = new EnumMap<>(RegistryService.class);
        Map<RegistryService, OriginException> failures = new EnumMap<>(RegistryService.class);
        DiscoveryDocument document = null;
        try {
            document = discovery.document(hostname);
            for (RegistryService service : RegistryService.values()) {
                try {
                    bases.put(service, document.base(service));
                } catch (OriginException e) {
                    failures.put(service, e);
                }
            }
        } catch (OriginException e) {
            for (RegistryService service : RegistryService.values()) {
                failures.put(service, e);
            }
        }
        rememberFailed(hostname, bases, failures);
        if (document != null) {
            try {
                memory.write(hostname, bases);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot store the discovery result of " + hostname, e);
            }
        }
        return new Discovered(Map.copyOf(bases), Map.copyOf(failures), System.nanoTime() + freshness.toNanos());
    }

    /**
     * Gives each service whose discovery failed its last known base URL, unless the host said it no longer offers
     * it ({@code NOT_FOUND}).
     */
    private void rememberFailed(
            String hostname, Map<RegistryService, URI> bases, Map<RegistryService, OriginException> failures) {
        if (failures.values().stream().allMatch(e -> e.reason() == OriginException.Reason.NOT_FOUND)) {
            return;
        }
        Map<RegistryService, URI> known = memory.read(hostname);
        for (Map.Entry<RegistryService, URI> remembered : known.entrySet()) {
            OriginException failure = failures.get(remembered.getKey());
            if (failure != null && failure.reason() != OriginException.Reason.NOT_FOUND) {
                LOG.warn(
                        "service discovery for {} failed ({}); using the last known registry URL {}",
                        hostname,
                        failure.getMessage(),
                        remembered.getValue());
                bases.put(remembered.getKey(), remembered.getValue());
                failures.remove(remembered.getKey());
            }
        }
    }
}
