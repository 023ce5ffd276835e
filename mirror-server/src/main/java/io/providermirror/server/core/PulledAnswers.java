package io.providermirror.server.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.providermirror.upstream.OriginException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers pulled from origins and held in memory as version lists are: one origin request per key however many
 * callers wait for it; fresh for the TTL, then served while a background refresh runs and kept when the refresh
 * fails (stale-if-error); bounded by weight (an answer's size in bytes), as every cache keyed by what clients send.
 * A failed pull (or refresh) is remembered for a short while, so a flood of requests for what an origin lacks, or
 * while it fails, is not a flood of origin requests.
 */
public final class PulledAnswers<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(PulledAnswers.class);

    /** How long a failed pull is answered from memory at most. */
    static final Duration FAILURE_MEMORY = Duration.ofSeconds(30);

    /** An answer and when it was pulled. */
    public record Pulled<V>(V value, Instant fetchedAt) {}

    private final Function<K, V> pull;
    private final Executor executor;
    private final Clock clock;
    private final Duration ttl;
    private final Cache<K, Pulled<V>> memory;
    private final Cache<K, RuntimeException> failures;
    private final Map<K, CompletableFuture<Pulled<V>>> pulling = new ConcurrentHashMap<>();

    /**
     * @param pull      the blocking origin request for a key; fails with a runtime exception
     * @param weight    an answer's weight, roughly its size in bytes
     * @param maxWeight the most the memory holds
     */
    public PulledAnswers(
            Function<K, V> pull,
            Executor executor,
            Clock clock,
            Duration ttl,
            ToIntFunction<V> weight,
            long maxWeight) {
        this.pull = pull;
        this.executor = executor;
        this.clock = clock;
        this.ttl = ttl;
        this.memory = Caffeine.newBuilder()
                .maximumWeight(maxWeight)
                .weigher((K key, Pulled<V> pulled) -> 64 + weight.applyAsInt(pulled.value()))
                .build();
        Duration remembered = ttl.compareTo(FAILURE_MEMORY) < 0 ? ttl : FAILURE_MEMORY;
        this.failures = Caffeine.newBuilder()
                .maximumSize(10_000)
                .expireAfterWrite(remembered)
                .build();
    }

    /** The answer for {@code key}: fresh, stale (a refresh follows), or pulled now (one pull for every caller). */
    public CompletableFuture<Pulled<V>> get(K key) {
        Pulled<V> known = memory.getIfPresent(key);
        if (known != null) {
            // A refresh that just failed is not tried again at once: a failing origin is asked once per while.
            if (known.fetchedAt().plus(ttl).isBefore(clock.instant()) && failures.getIfPresent(key) == null) {
                pull(key).whenComplete((fresh, failure) -> {
                    if (failure != null) {
                        LOG.warn(
                                "refreshing {} failed; serving the answer from {}: {}",
                                key,
                                known.fetchedAt(),
                                Futures.cause(failure).getMessage());
                    }
                });
            }
            return CompletableFuture.completedFuture(known);
        }
        RuntimeException failed = failures.getIfPresent(key);
        if (failed != null) {
            return CompletableFuture.failedFuture(failed);
        }
        return pull(key);
    }

    private CompletableFuture<Pulled<V>> pull(K key) {
        CompletableFuture<Pulled<V>> started = new CompletableFuture<>();
        CompletableFuture<Pulled<V>> running = pulling.putIfAbsent(key, started);
        if (running != null) {
            return running;
        }
        CompletableFuture.runAsync(
                () -> {
                    try {
                        Pulled<V> pulled = new Pulled<>(pull.apply(key), clock.instant());
                        memory.put(key, pulled);
                        failures.invalidate(key);
                        started.complete(pulled);
                    } catch (RuntimeException e) {
                        if (!(e instanceof OriginException origin)
                                || origin.reason() != OriginException.Reason.TIMEOUT) {
                            failures.put(key, e);
                        }
                        started.completeExceptionally(e);
                    } finally {
                        pulling.remove(key, started);
                    }
                },
                executor);
        return started;
    }
}
