package io.providermirror.server.app;

import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.inventory.MostRequested;
import io.providermirror.server.inventory.Usage;
import io.providermirror.server.inventory.UsageInventory;
import io.providermirror.server.inventory.UsageItem;
import io.providermirror.upstream.Memoized;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.RegistryService;
import io.providermirror.upstream.verify.VerifiedPackage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What start-up leaves for later, made in the background as soon as the listeners answer, so that the first
 * request for a cold provider does not wait for it: the trust towards origins (the JDK's CA store, a TLS context) and
 * the clients for documents and archives ({@link OriginHttpClient#prepare()}); the verification of the
 * {@link SampleRelease} that ships with the mirror (the download document read, the OpenPGP signature and the
 * archive's hashes checked: their classes loaded and first run) and the formatting, storing nothing, of what its fill
 * would store and log (the cache's release and hashes documents, the transparency log's entries: the JSON mappers'
 * writers built); then the {@link CachedReleasesAhead}, the cached releases clients asked for most, read and verified
 * into memory (offline too); then, with {@code upstream.discoverAtStartup}, the
 * discovery of each origin the mirror expects ({@link #MAX_HOSTS} at most: the configured hosts, then those the usage
 * inventory counted most requests for), kept as a request's would be, and one more discovery request through the
 * archive client: each client's first TLS handshake and exchange made, a connection of each left open to reuse;
 * last, with {@code upstream.rehearseAtStartup}, the {@link StartupRehearsal}: one cold provider run through a mirror
 * of its own, so that the rest of the cold path (the fill, the archive's answer, the documents stored) has run once.
 * Origins reached through a parent network mirror, and hosts no client request could reach, are not asked; offline,
 * no origin is asked and no client is made. Start-up does not wait for any of it; a request that needs an origin client before it is made
 * waits for the same single making (never a second one). A failure is left for the request that meets it, which
 * reports it: a discovery answer is recorded in the origin's health like any request's.
 */
final class OriginWarmUp {

    /** At most this many origins are asked for their discovery document after start-up. */
    static final int MAX_HOSTS = 8;

    private static final Logger LOG = LoggerFactory.getLogger(OriginWarmUp.class);

    /** How long a stopped warm-up waits for the rehearsal to close what it made. */
    private static final Duration REHEARSAL_PATIENCE = Duration.ofSeconds(4);

    /**
     * How far the warm-up is, and how to end it.
     *
     * @param clientsPrepared completes once the origin clients are made (at once when offline); exceptionally when
     *                        they could not be made
     * @param rehearsed       completes with what the start-up rehearsal did, or empty when none ran (offline, turned
     *                        off, stopped before it, or ended early)
     * @param done            completes (normally) once every step has run or the warm-up was stopped, whatever each
     *                        step gave
     */
    record Progress(
            CompletableFuture<Void> clientsPrepared,
            CompletableFuture<Optional<StartupRehearsal.Outcome>> rehearsed,
            CompletableFuture<Void> done,
            AtomicBoolean stopped,
            Thread thread) {

        /**
         * Asks no further origin, interrupts a request in progress and waits up to {@code patience} for the thread
         * to end: called before the mirror's parts are closed, so nothing is written to a cache no longer held.
         */
        void stop(Duration patience) {
            stopped.set(true);
            thread.interrupt();
            try {
                done.get(patience.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.debug("the warm-up after start-up did not end within {}: {}", patience, e.toString());
            }
        }
    }

    private OriginWarmUp() {}

    /** Starts the warm-up of {@code core} as {@code config} asks for it, on a daemon thread of its own. */
    static Progress start(MirrorConfig config, MirrorWiring core) {
        // Read once, on the warm-up's thread (on a bucket, every instance's shard), for both steps that rank by it.
        Memoized<Map<UsageItem, Usage>> fleet = new Memoized<>(() -> fleetOrNone(core.inventory()));
        return start(
                core.originClient(),
                config.upstream().offline(),
                sample -> formatDocuments(core, sample),
                stopped -> CachedReleasesAhead.load(core.mirror(), fleet.get(), stopped),
                config.upstream().discoverAtStartup() ? () -> expectedHosts(config, fleet.get()) : List::of,
                host -> discoverAhead(core, host),
                config.upstream().rehearseAtStartup() ? Optional.of(core.clock()) : Optional.empty());
    }

    /**
     * Starts the warm-up on a daemon thread of its own.
     *
     * @param offline   whether the mirror asks no origin
     * @param documents formats, storing nothing, what a fill of the verified sample release would store and log
     * @param cached    loads the cached releases clients are expected to ask for into memory, until the supplier
     *                  says the warm-up was stopped
     * @param hosts     the origin hosts to ask, most expected first (read on the warm-up's thread)
     * @param discover  asks one origin host for its discovery document; throws when that fails
     * @param rehearsal the clock of the {@link StartupRehearsal} to run last, when one is to run
     */
    static Progress start(
            OriginHttpClient http,
            boolean offline,
            Consumer<VerifiedPackage> documents,
            Consumer<BooleanSupplier> cached,
            Supplier<List<String>> hosts,
            Consumer<String> discover,
            Optional<Clock> rehearsal) {
        CompletableFuture<Void> prepared = new CompletableFuture<>();
        CompletableFuture<Optional<StartupRehearsal.Outcome>> rehearsed = new CompletableFuture<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        AtomicBoolean stopped = new AtomicBoolean();
        Thread thread = new Thread(
                () -> {
                    try {
                        prepare(http, prepared);
                        verifySample(documents);
                        loadCached(cached, stopped);
                        if (!offline && !stopped.get()) {
                            discoverEach(hosts, discover, stopped);
                        }
                        if (!offline && !stopped.get() && rehearsal.isPresent()) {
                            rehearsed.complete(Optional.of(rehearse(rehearsal.get())));
                        }
                    } catch (InterruptedException e) {
                        // Stopped during the rehearsal, which has closed what it made.
                        Thread.currentThread().interrupt();
                    } finally {
                        // An Error in a step (a class that cannot be initialised, say) ends the warm-up, not its
                        // futures: a request waiting for the clients makes them itself.
                        prepared.completeExceptionally(new IllegalStateException("the warm-up ended early"));
                        rehearsed.complete(Optional.empty());
                        done.complete(null);
                    }
                },
                "origin-warm-up");
        thread.setDaemon(true);
        thread.start();
        return new Progress(prepared, rehearsed, done, stopped, thread);
    }

    /**
     * The usage inventory's items across the fleet ({@link UsageInventory#fleet()}), or none when it cannot be read:
     * the warm-up then loads no cached release and asks the configured hosts only.
     */
    static Map<UsageItem, Usage> fleetOrNone(UsageInventory inventory) {
        try {
            return inventory.fleet();
        } catch (IOException | RuntimeException e) {
            LOG.debug(
                    "the usage inventory could not be read for the warm-up; loading no cached release and asking the"
                            + " configured hosts only: {}",
                    e.toString());
            return Map.of();
        }
    }

    /**
     * The origin hosts a mirror with {@code config} expects requests for, most expected first, each once: the
     * configured hosts (by name; those reached through a parent network mirror left out), then the hosts of the
     * providers and modules among the inventory's {@code items}, by their requests ({@link MostRequested}). Whether a
     * host may be asked at all is {@link #discoverAhead}'s to judge, as for any request.
     */
    static List<String> expectedHosts(MirrorConfig config, Map<UsageItem, Usage> items) {
        Set<String> parents = StartupBanner.parentMirrorHosts(config);
        Set<String> hosts = new LinkedHashSet<>();
        config.upstream().hosts().keySet().stream()
                .filter(host -> !parents.contains(host))
                .forEach(hosts::add);
        MostRequested.rank(items, item -> Optional.of(item.host()), Comparator.naturalOrder(), Integer.MAX_VALUE)
                .stream()
                .filter(host -> !parents.contains(host))
                .forEach(hosts::add);
        return List.copyOf(hosts);
    }

    /**
     * Discovers {@code hostname} ahead of any request for it (the base URLs kept as a client's request would keep
     * them), then asks it once more with the archive client ({@code ServiceDiscovery.askWithArchiveClient}). A host
     * that a client's request could not reach (refused by the origin rules or the policy for both providers and
     * modules, as the registry discovery document judges it) is not asked; one refused for providers only is
     * discovered for its modules.
     *
     * @throws RuntimeException the refusal, or the first request's failure (both requests are made either way)
     */
    static void discoverAhead(MirrorWiring core, String hostname) {
        Optional<RuntimeException> providersRefused = core.registry().hostRefusal(hostname);
        Optional<RuntimeException> modulesRefused = core.modules().hostRefusal(hostname);
        if (providersRefused.isPresent() && modulesRefused.isPresent()) {
            throw providersRefused.get();
        }
        RuntimeException failed = null;
        try {
            core.origins()
                    .discover(
                            hostname, providersRefused.isEmpty() ? RegistryService.PROVIDERS : RegistryService.MODULES);
        } catch (RuntimeException e) {
            failed = e;
        }
        try {
            core.discovery().askWithArchiveClient(hostname);
        } catch (RuntimeException e) {
            failed = failed == null ? e : failed;
        }
        if (failed != null) {
            throw failed;
        }
    }

    /** Runs the {@link StartupRehearsal} and logs what it did. */
    private static StartupRehearsal.Outcome rehearse(Clock clock) throws InterruptedException {
        StartupRehearsal.Outcome outcome = StartupRehearsal.run(clock, REHEARSAL_PATIENCE);
        if (outcome.served() && outcome.failure().isEmpty()) {
            LOG.debug(
                    "the start-up rehearsal ran a cold provider through a mirror of its own in {} ms",
                    outcome.took().toMillis());
        } else {
            // Nothing is served from it, and clients are served as before; the first cold provider waits longer.
            LOG.info(
                    "the start-up rehearsal (one cold provider through a mirror of the mirror's own, in a temporary"
                            + " directory under {}) did not complete, which changes nothing for clients: {}",
                    System.getProperty("java.io.tmpdir"),
                    outcome.failure().orElse("unknown"));
        }
        return outcome;
    }

    private static void prepare(OriginHttpClient http, CompletableFuture<Void> prepared) {
        long start = System.nanoTime();
        try {
            http.prepare();
            LOG.debug(
                    "the clients towards origins are ready ({} ms after the listeners)",
                    (System.nanoTime() - start) / 1_000_000);
            prepared.complete(null);
        } catch (Exception e) {
            // The first request to an origin makes them again and reports what is wrong.
            LOG.debug("making the clients towards origins ahead of the first request failed: {}", e.toString());
            prepared.completeExceptionally(e);
        }
    }

    private static void verifySample(Consumer<VerifiedPackage> documents) {
        VerifiedPackage sample;
        try {
            sample = SampleRelease.verify();
        } catch (RuntimeException | LinkageError e) {
            // Nothing is served from it; but the code that verifies every origin's release refused one it must accept.
            LOG.warn("the sample release shipped with the mirror does not verify: {}", e.getMessage());
            return;
        }
        try {
            documents.accept(sample);
        } catch (RuntimeException | LinkageError e) {
            // Nothing is stored from it; but a document the cache would store could not be formatted or read back.
            LOG.warn("formatting the sample release's documents after start-up failed: {}", e.toString());
        }
    }

    /**
     * Formats what the first fill of a cold provider stores and logs, from the verified {@code sample}: its release
     * evidence and {@code h1:} hashes as the cache's documents ({@link CacheDocuments#warmUp}) and its entries in the
     * transparency log ({@code AsyncDecisionLog.warmUp}). Nothing is stored or recorded; the JSON mappers the
     * request will use have built their writers and readers for these documents.
     */
    static void formatDocuments(MirrorWiring core, VerifiedPackage sample) {
        try {
            CacheDocuments.warmUp(
                    SampleRelease.evidence(),
                    Map.of(sample.platform(), sample.h1().get(0)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        core.log().decisions().warmUp();
    }

    private static void loadCached(Consumer<BooleanSupplier> cached, AtomicBoolean stopped) {
        try {
            cached.accept(stopped::get);
        } catch (RuntimeException e) {
            // Each release is left for the request that meets it, which reports what is wrong.
            LOG.debug("loading the most requested cached releases after start-up failed: {}", e.toString());
        }
    }

    private static void discoverEach(Supplier<List<String>> hosts, Consumer<String> discover, AtomicBoolean stopped) {
        List<String> asked;
        try {
            asked = hosts.get().stream().limit(MAX_HOSTS).toList();
        } catch (RuntimeException e) {
            LOG.debug("which origins to ask after start-up could not be read: {}", e.toString());
            return;
        }
        for (String host : asked) {
            if (stopped.get()) {
                return;
            }
            try {
                discover.accept(host);
            } catch (RuntimeException e) {
                LOG.debug("asking {} for its discovery document after start-up failed: {}", host, e.toString());
            }
        }
    }
}
