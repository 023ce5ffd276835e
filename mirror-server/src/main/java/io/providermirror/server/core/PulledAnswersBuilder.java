package io.providermirror.server.core;

import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.HostLanes;
import io.providermirror.upstream.OriginException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;

/** How {@link PulledAnswers} are made; every setting but the four of {@link PulledAnswers#builder} is optional. */
public final class PulledAnswersBuilder<K, V> {
    final PulledAnswers.Source<K, V> source;
    final Executor executor;
    final Clock clock;
    final Duration ttl;
    boolean refreshes = true;
    boolean expires;
    Predicate<V> absent = value -> false;
    Function<K, String> describe = String::valueOf;
    ToIntFunction<V> weight = value -> 1;
    long maxWeight = 10_000;
    Duration failureMemory = Duration.ZERO;
    Predicate<RuntimeException> remembered = failure -> false;
    UnaryOperator<RuntimeException> recalled = UnaryOperator.identity();
    MirrorMetrics metrics;
    MirrorMetrics.LookupKind lookupKind;
    String cacheName;
    BiConsumer<K, Throwable> loadFailed = (key, failure) -> {};
    HostLanes lanes;
    Function<K, String> host;

    PulledAnswersBuilder(PulledAnswers.Source<K, V> source, Executor executor, Clock clock, Duration ttl) {
        this.source = source;
        this.executor = executor;
        this.clock = clock;
        this.ttl = ttl;
    }

    /** Held by weight (roughly an answer's size in bytes), {@code maxWeight} at most. */
    public PulledAnswersBuilder<K, V> weighing(ToIntFunction<V> weight, long maxWeight) {
        this.weight = weight;
        this.maxWeight = maxWeight;
        return this;
    }

    /** Answers that never change once pulled (verified releases): never stale, never refreshed. */
    public PulledAnswersBuilder<K, V> immutable() {
        this.refreshes = false;
        return this;
    }

    /**
     * Answers that expire after the TTL and are never served stale (a verdict with a date, such as a signature
     * judged valid now): the next caller after the TTL waits for one pull, dated when it was asked for; never
     * refreshed in the background.
     */
    public PulledAnswersBuilder<K, V> expiring() {
        this.refreshes = false;
        this.expires = true;
        return this;
    }

    /**
     * Answers {@code absent} accepts say the source has nothing for the key (a version without a pin): handed to the
     * callers that waited for their pull, never served from memory, so what the source holds afterwards is what the
     * next caller gets. They are neither failures (none is remembered) nor stale answers kept.
     */
    public PulledAnswersBuilder<K, V> absentWhen(Predicate<V> absent) {
        this.absent = absent;
        return this;
    }

    /** Offline: answers are never stale, and never refreshed. */
    public PulledAnswersBuilder<K, V> offline(boolean offline) {
        this.refreshes = !offline;
        return this;
    }

    /** How a key is named in the log line of a failed refresh ("the version list of ..."). */
    public PulledAnswersBuilder<K, V> describedAs(Function<K, String> describe) {
        this.describe = describe;
        return this;
    }

    /**
     * Failed loads {@code which} accepts are remembered for {@code howLong}, and answered as {@code recalled}
     * makes of them meanwhile; a zero duration remembers none.
     */
    public PulledAnswersBuilder<K, V> rememberingFailures(
            Duration howLong, Predicate<RuntimeException> which, UnaryOperator<RuntimeException> recalled) {
        this.failureMemory = howLong;
        this.remembered = which;
        this.recalled = recalled;
        return this;
    }

    /**
     * Every failed load but a timeout or a full lane (the next request may be luckier) is remembered for the TTL, and
     * for {@link PulledAnswers#RETRY_INTERVAL} at most.
     */
    public PulledAnswersBuilder<K, V> rememberingFailuresBriefly() {
        return rememberingFailures(
                ttl.compareTo(PulledAnswers.RETRY_INTERVAL) < 0 ? ttl : PulledAnswers.RETRY_INTERVAL,
                failure -> !(failure instanceof RejectedExecutionException)
                        && (!(failure instanceof OriginException origin)
                                || origin.reason() != OriginException.Reason.TIMEOUT),
                UnaryOperator.identity());
    }

    /** Told of each failed load once (not once per caller waiting for it), to log it as the owner logs. */
    public PulledAnswersBuilder<K, V> onLoadFailure(BiConsumer<K, Throwable> loadFailed) {
        this.loadFailed = loadFailed;
        return this;
    }

    /** Client lookups counted as {@code kind}: a hit, a stale hit, or a miss when the origin answered (or none). */
    public PulledAnswersBuilder<K, V> counting(MirrorMetrics metrics, MirrorMetrics.LookupKind kind) {
        this.metrics = metrics;
        this.lookupKind = kind;
        return this;
    }

    /** The memory's statistics published as the cache {@code name}. */
    public PulledAnswersBuilder<K, V> monitored(MirrorMetrics metrics, String name) {
        this.metrics = metrics;
        this.cacheName = name;
        return this;
    }

    /**
     * Pulls and refreshes from the origin run on the lane of the key's origin {@code host} (reads of the cache
     * directory stay on the executor): an origin that hangs holds no more than its share of the executor's threads.
     * The source's pulls must not wait for another pull of the same host on these lanes.
     */
    public PulledAnswersBuilder<K, V> pulledPerHost(HostLanes lanes, Function<K, String> host) {
        this.lanes = lanes;
        this.host = host;
        return this;
    }

    public PulledAnswers<K, V> build() {
        return new PulledAnswers<>(this);
    }
}
