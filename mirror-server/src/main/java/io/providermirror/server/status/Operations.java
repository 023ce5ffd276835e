package io.providermirror.server.status;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * What operators ask of a running mirror, as plain Java: the Prometheus text of every meter, whether the
 * process is alive, and whether it is ready for traffic (its cache directory is writable, its listener is up,
 * and it is not shutting down).
 */
public final class Operations {

    /** The Prometheus text format's media type. */
    public static final String METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /** Whether the mirror is ready, and what each check found. */
    public record Readiness(boolean ready, Map<String, String> checks) {}

    private final PrometheusMeterRegistry registry;
    private final Path probeDirectory;
    private volatile BooleanSupplier listenerUp = () -> false;
    private volatile boolean draining;
    private volatile io.providermirror.cache.FillLeases fillLeases = io.providermirror.cache.FillLeases.local();
    private volatile java.util.function.Supplier<String> store;

    /** @param probeDirectory a directory on the cache's file system where readiness writes a probe file */
    public Operations(PrometheusMeterRegistry registry, Path probeDirectory) {
        this.registry = registry;
        this.probeDirectory = probeDirectory;
    }

    /** Every meter in the Prometheus text format. */
    public String metricsText() {
        return registry.scrape();
    }

    /** Tells readiness how to know that the main listener is up. */
    public void listener(BooleanSupplier up) {
        this.listenerUp = up;
    }

    /** Tells readiness which fill leases the mirror uses, so it reports whether they exclude other instances. */
    public void fillLeases(io.providermirror.cache.FillLeases leases) {
        this.fillLeases = leases;
    }

    /**
     * Tells readiness how to ask the bucket that is the cache of record whether it answers ("reachable", or why
     * not). It is reported, but does not make the mirror unready: every instance shares the bucket, and taking
     * them all out of the load balancer would also stop the warm archives their local tiers still serve.
     */
    public void store(java.util.function.Supplier<String> probe) {
        this.store = probe;
    }

    /** From now on the mirror is shutting down: not ready, so load balancers send no new requests. */
    public void draining() {
        this.draining = true;
    }

    /** Checks the cache directory by writing and removing a file; does I/O, so not for an event loop. */
    public Readiness readiness() {
        Map<String, String> checks = new LinkedHashMap<>();
        boolean ready = true;
        try {
            Path probe = Files.createTempFile(probeDirectory, "readiness-", ".probe");
            Files.delete(probe);
            checks.put("cacheDirectory", "writable");
        } catch (IOException | RuntimeException e) {
            checks.put("cacheDirectory", "not writable: " + e);
            ready = false;
        }
        if (listenerUp.getAsBoolean()) {
            checks.put("listener", "up");
        } else {
            checks.put("listener", "down");
            ready = false;
        }
        // Reported, not a reason to refuse traffic: an instance with advisory leases serves correctly, the fleet
        // may only fetch an archive more than once.
        checks.put(
                "fillLeases",
                fillLeases.exclusive()
                        ? "exclusive"
                        : "advisory: the object store ignores conditional writes, so instances may fetch an archive"
                                + " more than once");
        java.util.function.Supplier<String> probe = store;
        if (probe != null) {
            checks.put("store", probe.get());
        }
        if (draining) {
            checks.put("shutdown", "draining connections");
            ready = false;
        }
        return new Readiness(ready, checks);
    }
}
