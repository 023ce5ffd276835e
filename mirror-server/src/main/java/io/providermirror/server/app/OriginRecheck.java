package io.providermirror.server.app;

import io.providermirror.server.metrics.OriginHealth;
import io.providermirror.upstream.HostLanes;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Asks each origin that became unreachable again, every {@code interval}, for its discovery document, so that the
 * status page's health recovers when the origin does, not at the next client request for it. Only origins whose
 * last failure was a request that got no usable answer are asked (a refused release is no question of reaching
 * the origin); origins reached through a parent network mirror have no discovery document and are left to the
 * next request; an offline mirror asks nothing. The answer is recorded like any request's, through the origin
 * observer, with the same destination checks. Each question runs on its origin's lane, as client requests to it do:
 * the mirror remembers up to 100 origins, and questions to as many unreachable ones at once must not take every
 * thread.
 */
final class OriginRecheck implements AutoCloseable {

    private final OriginHealth health;
    /** Asks one origin host; throws when it still fails (the observer records either way). */
    private final Consumer<String> ask;

    private final Set<String> parentMirrorHosts;
    private final Executor executor;
    private final HostLanes lanes;
    private final Duration interval;
    private final Set<String> asking = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    OriginRecheck(
            OriginHealth health,
            Consumer<String> ask,
            Set<String> parentMirrorHosts,
            Executor executor,
            HostLanes lanes,
            Duration interval) {
        this.health = health;
        this.ask = ask;
        this.parentMirrorHosts = Set.copyOf(parentMirrorHosts);
        this.executor = executor;
        this.lanes = lanes;
        this.interval = interval;
    }

    /** Rechecks every {@code interval} from now on, until closed. */
    void start() {
        schedule();
    }

    private void schedule() {
        if (!closed) {
            try {
                CompletableFuture.runAsync(
                        () -> {
                            recheck();
                            schedule();
                        },
                        CompletableFuture.delayedExecutor(interval.toMillis(), TimeUnit.MILLISECONDS, executor));
            } catch (RejectedExecutionException closing) {
                closed = true;
            }
        }
    }

    /** Asks every unreachable origin once, at most one question per origin in flight. */
    void recheck() {
        for (OriginHealth.Snapshot origin : health.snapshot()) {
            String host = origin.origin();
            if (closed || origin.healthy() || !origin.unreachable() || parentMirrorHosts.contains(host)) {
                continue;
            }
            if (asking.add(host)) {
                try {
                    lanes.of(host).execute(() -> ask(host));
                } catch (RejectedExecutionException closing) {
                    asking.remove(host);
                }
            }
        }
    }

    private void ask(String host) {
        try {
            ask.accept(host);
        } catch (RuntimeException stillFailing) {
            // recorded by the observer as a failed request; the next recheck asks again
        } finally {
            asking.remove(host);
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
