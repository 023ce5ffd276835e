package io.providermirror.server.core;

import io.providermirror.server.metrics.MirrorMetrics;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Counts the archive downloads in progress, in total and per origin host, and refuses a new one beyond
 * {@link FillBounds}: each holds a thread, a socket and a temporary file, so a flood of cold misses (or one
 * origin that never finishes) must not take them all.
 */
final class FillPermits {

    /** What a refused client is told to wait: about as long as a typical archive takes to fetch. */
    static final Duration RETRY_AFTER = Duration.ofSeconds(5);

    /** One download's place; closing it (once or more) gives the place back. */
    interface Permit extends AutoCloseable {
        @Override
        void close();
    }

    private final FillBounds bounds;
    private final MirrorMetrics metrics;
    private final Map<String, Integer> perHost = new HashMap<>();
    private int total;

    FillPermits(FillBounds bounds, MirrorMetrics metrics) {
        this.bounds = bounds;
        this.metrics = metrics;
    }

    /**
     * A place for a download of {@code what} from {@code host}.
     *
     * @throws CapacityException when the total or the host's limit is reached
     */
    Permit acquire(String host, String what) {
        synchronized (this) {
            if (total >= bounds.maxConcurrent()) {
                metrics.refused("fills", host);
                throw new CapacityException(
                        CapacityException.Limit.FILLS,
                        "the mirror is already fetching "
                                + bounds.maxConcurrent()
                                + " archives from origins (upstream.maxConcurrentFills), so it did not "
                                + "start fetching " + what + " from " + host + "; try again in a few seconds",
                        RETRY_AFTER);
            }
            int forHost = perHost.getOrDefault(host, 0);
            if (forHost >= bounds.maxConcurrentPerHost()) {
                metrics.refused("fills_per_host", host);
                throw new CapacityException(
                        CapacityException.Limit.FILLS,
                        "the mirror is already fetching "
                                + bounds.maxConcurrentPerHost() + " archives from " + host
                                + " (upstream.maxConcurrentFillsPerHost), so it did not start fetching " + what
                                + "; try again in a few seconds",
                        RETRY_AFTER);
            }
            total++;
            perHost.put(host, forHost + 1);
        }
        boolean[] released = new boolean[1];
        return () -> {
            synchronized (this) {
                if (released[0]) {
                    return;
                }
                released[0] = true;
                total--;
                perHost.computeIfPresent(host, (h, n) -> n == 1 ? null : n - 1);
            }
        };
    }

    /** Downloads holding a place now. */
    synchronized int inUse() {
        return total;
    }
}
