package io.providermirror.server.core;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.HostLanes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way a document from an origin is held in memory, per key: read from the cache directory, else pulled from
 * the origin, once however many callers wait for it; fresh for the TTL, then served while a background refresh runs
 * and kept when the refresh fails (stale-if-error; a failed refresh is not tried again for {@link #RETRY_INTERVAL} at
 * most); bounded by weight, as every cache keyed by what clients send. Failures chosen by the owner are remembered
 * for a while, so a flood of requests for what an origin lacks is not a flood of origin requests. Lookups are counted
 * as hits, stale hits and misses when the owner names their kind. Answers that must not outlive their TTL (their
 * judgement goes out of date) are {@link PulledAnswersBuilder#expiring}: never served stale, pulled again by the next caller.
 * An owner whose source may have nothing for a key says which answers are {@link PulledAnswersBuilder#absentWhen absent}:
 * handed to the callers that waited for that pull, never held, so what appears afterwards is found by the next caller.
 * Made by {@link #builder}.
 */
public final class PulledAnswers<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(PulledAnswers.class);

    /** How long a failed refresh (or one another instance runs) waits before it is tried again, at most. */
    static final Duration RETRY_INTERVAL = Duration.ofSeconds(30);

    /** An answer and when it was pulled from the origin. */
    public record Pulled<V>(V value, Instant fetchedAt) {}

    /** Where answers come from. Every method blocks, and runs on the executor. */
    public interface Source<K, V> {

        /** The origin's answer for {@code key} now; fails with a runtime exception. */
        V pull(K key);

        /**
         * The origin's answer for {@code key}, pulled on {@code executor}: by default {@link #pull} there. A source
         * whose pull waits for other answers overrides it, so that no executor thread blocks waiting for another.
         */
        default CompletableFuture<V> pulling(K key, Executor executor) {
            return CompletableFuture.supplyAsync(() -> pull(key), executor);
        }

        /** The answer the cache directory holds for {@code key}, if any, read before the origin is asked. */
        default Optional<Pulled<V>> stored(K key) {
            return Optional.empty();
        }

        /**
         * A fresher answer for the stale {@code known}; {@code pull} asks the origin. Empty when not now (another
         * instance refreshes it): asked again after the retry interval.
         */
        default Optional<Pulled<V>> refreshed(K key, Pulled<V> known, Supplier<Pulled<V>> pull) {
            return Optional.of(pull.get());
        }
    }

    /** An answer in memory, and whether it came from the origin (rather than the cache directory) as it entered. */
    private record Held<V>(Pulled<V> pulled, boolean fromOrigin) {}

    private final Source<K, V> source;
    private final Executor executor;
    private final HostLanes lanes;
    private final Function<K, String> host;
    private final Clock clock;
    private final Duration ttl;
    private final boolean refreshes;
    private final boolean expires;
    private final Predicate<V> absent;
    private final Function<K, String> describe;
    private final Optional<MirrorMetrics.LookupKind> counted;
    private final MirrorMetrics metrics;
    private final AsyncCache<K, Held<V>> memory;
    private final Cache<K, RuntimeException> failures;
    private final Predicate<RuntimeException> remembered;
    private final UnaryOperator<RuntimeException> recalled;
    private final Cache<K, Instant> failedRefreshes;
    private final BiConsumer<K, Throwable> loadFailed;
    private final Map<K, Instant> refreshing = new ConcurrentHashMap<>();
    /** How many times memory was told to forget: {@link #loadStored} puts back nothing read before a forget. */
    private final AtomicLong forgets = new AtomicLong();

    PulledAnswers(PulledAnswersBuilder<K, V> b) {
        this.source = b.source;
        this.executor = b.executor;
        this.lanes = b.lanes;
        this.host = b.host;
        this.clock = b.clock;
        this.ttl = b.ttl;
        this.refreshes = b.refreshes;
        this.expires = b.expires;
        this.absent = b.absent;
        this.describe = b.describe;
        this.counted = Optional.ofNullable(b.lookupKind);
        this.metrics = b.metrics;
        Caffeine<Object, Object> memory = Caffeine.newBuilder()
                // Maintenance (weighing, evicting) is cheap and runs where a value completes, so an answer over the
                // memory budget is gone before the next request can find it.
                .executor(Runnable::run);
        if (b.cacheName != null) {
            memory.recordStats();
        }
        ToIntFunction<V> weight = b.weight;
        this.memory = memory.maximumWeight(b.maxWeight)
                .weigher(
                        (K key, Held<V> held) -> weight.applyAsInt(held.pulled().value()))
                .buildAsync();
        if (b.cacheName != null) {
            b.metrics.monitor(this.memory, b.cacheName);
        }
        this.failures = Caffeine.newBuilder()
                .maximumSize(b.failureMemory.isZero() ? 0 : 10_000)
                .expireAfterWrite(b.failureMemory)
                .ticker(() -> nanos(clock))
                .executor(Runnable::run)
                .build();
        this.remembered = b.remembered;
        this.loadFailed = b.loadFailed;
        this.recalled = b.recalled;
        Duration retry = ttl.compareTo(RETRY_INTERVAL) < 0 ? ttl : RETRY_INTERVAL;
        this.failedRefreshes = Caffeine.newBuilder()
                .maximumSize(10_000)
                .expireAfterWrite(retry.isZero() ? Duration.ofNanos(1) : retry)
                .ticker(() -> nanos(clock))
                .executor(Runnable::run)
                .build();
    }

    /**
     * A builder for answers from {@code source}, fresh for {@code ttl}, loaded and refreshed on {@code executor}; held
     * 10,000 at most unless {@link PulledAnswersBuilder#weighing} says otherwise.
     */
    public static <K, V> PulledAnswersBuilder<K, V> builder(
            Source<K, V> source, Executor executor, Clock clock, Duration ttl) {
        return new PulledAnswersBuilder<>(source, executor, clock, ttl);
    }

    /** The answer for {@code key}: fresh, stale (a refresh follows), or loaded now; counted as a lookup. */
    public CompletableFuture<Pulled<V>> get(K key) {
        return get(key, true);
    }

    /** As {@link #get}, for the mirror's own use: not counted as a client's lookup. */
    public CompletableFuture<Pulled<V>> getUncounted(K key) {
        return get(key, false);
    }

    private CompletableFuture<Pulled<V>> get(K key, boolean count) {
        boolean counts = count && counted.isPresent();
        CompletableFuture<Held<V>> present = memory.getIfPresent(key);
        if (present != null && isGone(present)) {
            // Gone for every caller at once: the first to come loads it again, the others wait for that load.
            memory.asMap().remove(key, present);
            present = null;
        }
        if (present != null && present.isDone() && !present.isCompletedExceptionally()) {
            Pulled<V> known = present.join().pulled();
            if (counts) {
                lookup(isStale(known) ? MirrorMetrics.LookupResult.STALE : MirrorMetrics.LookupResult.HIT);
            }
            refreshIfStale(key, known);
            return CompletableFuture.completedFuture(known);
        }
        RuntimeException failed = failures.getIfPresent(key);
        CompletableFuture<Held<V>> loaded;
        if (failed != null) {
            loaded = CompletableFuture.failedFuture(recalled.apply(failed));
        } else {
            CompletableFuture<Held<V>> pulling = memory.get(key, (k, ignored) -> load(k));
            // An absent answer goes to the callers that waited for this pull only; the next caller pulls again.
            loaded = pulling.whenComplete((held, failure) -> {
                if (held != null && absent.test(held.pulled().value())) {
                    memory.asMap().remove(key, pulling);
                }
            });
        }
        if (counts) {
            loaded = loaded.whenComplete((held, failure) -> lookup(
                    failure != null || held.fromOrigin()
                            ? MirrorMetrics.LookupResult.MISS
                            : isStale(held.pulled())
                                    ? MirrorMetrics.LookupResult.STALE
                                    : MirrorMetrics.LookupResult.HIT));
        }
        return loaded.thenApply(held -> {
            refreshIfStale(key, held.pulled());
            return held.pulled();
        });
    }

    /** The answer memory holds for {@code key} now, if any; never loads. */
    public Optional<V> inMemory(K key) {
        CompletableFuture<Held<V>> present = memory.getIfPresent(key);
        if (present != null && present.isDone() && !present.isCompletedExceptionally() && !isGone(present)) {
            return Optional.of(present.join().pulled().value());
        }
        return Optional.empty();
    }

    /**
     * Puts the cache directory's answer for {@code key} in memory when memory holds none and the cache directory holds
     * one, on the executor: never asks the origin and counts no lookup (the warm-up after start-up). Completes with
     * whether memory holds an answer for {@code key} then. What memory was told to forget meanwhile (a purge, which
     * removes the files first) is not put back.
     */
    public CompletableFuture<Boolean> loadStored(K key) {
        return CompletableFuture.supplyAsync(
                () -> {
                    if (memory.getIfPresent(key) != null) {
                        return true;
                    }
                    long forgotten = forgets.get();
                    Optional<Pulled<V>> stored = source.stored(key);
                    if (stored.isEmpty()) {
                        return false;
                    }
                    CompletableFuture<Held<V>> held =
                            CompletableFuture.completedFuture(new Held<>(stored.get(), false));
                    memory.asMap().putIfAbsent(key, held);
                    if (forgets.get() != forgotten) {
                        // A forget since the read may have come before the put, and the read be of what it removed.
                        memory.asMap().remove(key, held);
                        return false;
                    }
                    return true;
                },
                executor);
    }

    /** Forgets what memory holds for {@code key}, and a remembered failure: the cache directory answers next. */
    public void forget(K key) {
        forgets.incrementAndGet();
        memory.synchronous().invalidate(key);
        failures.invalidate(key);
        failedRefreshes.invalidate(key);
    }

    /** Forgets what memory holds for every key {@code which} selects, as {@link #forget} does for one. */
    public void forgetIf(Predicate<K> which) {
        forgets.incrementAndGet();
        memory.synchronous().asMap().keySet().removeIf(which);
        failures.asMap().keySet().removeIf(which);
        failedRefreshes.asMap().keySet().removeIf(which);
    }

    private void lookup(MirrorMetrics.LookupResult result) {
        metrics.cacheLookup(counted.orElseThrow(), result);
    }

    /** The cache directory's answer, else the origin's; a failure chosen to be remembered is, before it is seen. */
    private CompletableFuture<Held<V>> load(K key) {
        return CompletableFuture.supplyAsync(() -> source.stored(key), executor)
                .thenCompose(stored -> stored.isPresent()
                        ? CompletableFuture.completedFuture(new Held<>(stored.get(), false))
                        : pulledFromOrigin(key))
                .whenComplete((held, failure) -> {
                    if (failure == null) {
                        failures.invalidate(key);
                        return;
                    }
                    if (Futures.cause(failure) instanceof RuntimeException e && remembered.test(e)) {
                        failures.put(key, e);
                    }
                    loadFailed.accept(key, failure);
                });
    }

    /**
     * Replaces the answer memory holds for {@code key}, if it holds one, with what {@code change} makes of it (when it
     * was pulled stays as it was); never loads.
     */
    public void replaceIfPresent(K key, UnaryOperator<V> change) {
        // One atomic step: an answer forgotten meanwhile (a purge) is not put back.
        memory.asMap().computeIfPresent(key, (k, present) -> {
            if (!present.isDone() || present.isCompletedExceptionally()) {
                return present;
            }
            Pulled<V> known = present.join().pulled();
            return CompletableFuture.completedFuture(
                    new Held<>(new Pulled<>(change.apply(known.value()), known.fetchedAt()), false));
        });
    }

    /**
     * The origin's answer, dated when it came; an expiring answer is dated when it was asked for, as what it judges
     * (a signature's dates, say) is judged then.
     */
    private CompletableFuture<Held<V>> pulledFromOrigin(K key) {
        Instant asked = clock.instant();
        return source.pulling(key, originExecutor(key))
                .thenApply(value -> new Held<>(new Pulled<>(value, expires ? asked : clock.instant()), true));
    }

    /**
     * Whether {@code present} is an answer memory must not serve: an absent one (memory holds it only until the pull
     * that made it is done), or an expiring one past its TTL.
     */
    private boolean isGone(CompletableFuture<Held<V>> present) {
        if (!present.isDone() || present.isCompletedExceptionally()) {
            return false;
        }
        Pulled<V> pulled = present.join().pulled();
        return absent.test(pulled.value()) || (expires && isPast(pulled, ttl));
    }

    private boolean isPast(Pulled<V> pulled, Duration age) {
        return Duration.between(pulled.fetchedAt(), clock.instant()).compareTo(age) > 0;
    }

    private Pulled<V> pull(K key) {
        return new Pulled<>(source.pull(key), clock.instant());
    }

    private boolean isStale(Pulled<V> pulled) {
        return refreshes && isPast(pulled, ttl);
    }

    private void refreshIfStale(K key, Pulled<V> known) {
        if (!isStale(known) || failedRefreshes.getIfPresent(key) != null) {
            return;
        }
        if (refreshing.putIfAbsent(key, clock.instant()) != null) {
            return;
        }
        try {
            originExecutor(key).execute(() -> refresh(key, known));
        } catch (RejectedExecutionException busyOrClosing) {
            // Its origin's lane is full (or the pool is shutting down): tried again after the retry interval.
            failedRefreshes.put(key, clock.instant());
            refreshing.remove(key);
        }
    }

    private void refresh(K key, Pulled<V> known) {
        try {
            Optional<Pulled<V>> fresh = source.refreshed(key, known, () -> pull(key));
            if (fresh.isPresent()) {
                memory.put(key, CompletableFuture.completedFuture(new Held<>(fresh.get(), false)));
                failures.invalidate(key);
                failedRefreshes.invalidate(key);
            } else {
                failedRefreshes.put(key, clock.instant());
            }
        } catch (RuntimeException e) {
            failedRefreshes.put(key, clock.instant());
            LOG.warn(
                    "refreshing {} failed; serving the one fetched at {}: {}",
                    describe.apply(key),
                    known.fetchedAt(),
                    Futures.cause(e).getMessage());
        } finally {
            refreshing.remove(key);
        }
    }

    /** Where a request to the origin of {@code key} runs: its host's lane, else the executor. */
    private Executor originExecutor(K key) {
        return lanes == null ? executor : lanes.of(host.apply(key));
    }

    /** The clock's time in nanoseconds, as a Caffeine ticker: tests move the mirror's clock. */
    private static long nanos(Clock clock) {
        Instant now = clock.instant();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }
}
