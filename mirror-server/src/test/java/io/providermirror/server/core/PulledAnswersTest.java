package io.providermirror.server.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.testkit.SettableClock;
import io.providermirror.upstream.HostLanes;
import io.providermirror.upstream.LaneFullException;
import io.providermirror.upstream.OriginException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PulledAnswers}: one pull for concurrent callers, the TTL, stale-while-refresh and stale-if-error, and what its
 * owners add: a cache directory read before the origin, a refresh another instance may run instead, failures
 * remembered on the mirror's clock, offline and immutable answers, and lookups counted.
 */
final class PulledAnswersTest {

    private static final Duration TTL = Duration.ofMinutes(5);

    private final ExecutorService executor = Executors.newFixedThreadPool(2);
    private final SettableClock clock = new SettableClock();
    private final MirrorMetrics metrics = MirrorMetrics.discarding();
    private final AtomicInteger pulls = new AtomicInteger();
    private final AtomicInteger refreshes = new AtomicInteger();
    /** What the cache directory holds, if anything. */
    private final AtomicReference<PulledAnswers.Pulled<String>> stored = new AtomicReference<>();
    /** What the origin answers next: a value, or a failure to throw. */
    private final AtomicReference<Object> origin = new AtomicReference<>("origin");
    /** What the origin waits for before it answers. */
    private volatile CountDownLatch answering = new CountDownLatch(0);
    /** What a read of the cache directory waits for, once it has said it began (on {@link #readBegun}). */
    private volatile CountDownLatch reading = new CountDownLatch(0);

    private final CountDownLatch readBegun = new CountDownLatch(1);
    /** Whether this instance may refresh (no other instance holds the refresh lease). */
    private volatile boolean granted = true;

    private final PulledAnswers.Source<String, String> source = new PulledAnswers.Source<>() {
        @Override
        public String pull(String key) {
            pulls.incrementAndGet();
            try {
                answering.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Object next = origin.get();
            if (next instanceof RuntimeException failure) {
                throw failure;
            }
            return key + ":" + next;
        }

        @Override
        public Optional<PulledAnswers.Pulled<String>> stored(String key) {
            PulledAnswers.Pulled<String> held = stored.get();
            readBegun.countDown();
            try {
                reading.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Optional.ofNullable(held);
        }

        @Override
        public Optional<PulledAnswers.Pulled<String>> refreshed(
                String key, PulledAnswers.Pulled<String> known, Supplier<PulledAnswers.Pulled<String>> pull) {
            refreshes.incrementAndGet();
            return granted ? Optional.of(pull.get()) : Optional.empty();
        }
    };

    private PulledAnswersBuilder<String, String> builder() {
        return PulledAnswers.builder(source, executor, clock, TTL).counting(metrics, MirrorMetrics.LookupKind.INDEX);
    }

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    /** The warm-up's load: what the cache directory holds, into memory, never the origin's. */
    @Test
    void loadingWhatTheCacheDirectoryHoldsNeverAsksTheOriginAndWhatItLoadedIsServed() {
        PulledAnswers<String, String> answers = builder().build();

        assertThat(answers.loadStored("list").join()).as("nothing stored").isFalse();
        assertThat(answers.inMemory("list")).isEmpty();
        assertThat(pulls).hasValue(0);

        stored.set(new PulledAnswers.Pulled<>("list:stored", clock.instant()));
        assertThat(answers.loadStored("list").join()).isTrue();
        stored.set(null);
        assertThat(answers.get("list").join().value()).isEqualTo("list:stored");
        assertThat(pulls).hasValue(0);
    }

    /** A purge removes the files, then has memory forget: what the load read before is not put back after. */
    @Test
    void whatIsForgottenWhileTheLoadReadsItIsNotPutBack() throws Exception {
        PulledAnswers<String, String> answers = builder().build();
        stored.set(new PulledAnswers.Pulled<>("list:stored", clock.instant()));
        reading = new CountDownLatch(1);

        var loading = answers.loadStored("list");
        assertThat(readBegun.await(30, TimeUnit.SECONDS)).isTrue();
        stored.set(null);
        answers.forget("list");
        reading.countDown();

        assertThat(loading.join()).isFalse();
        assertThat(answers.inMemory("list")).isEmpty();
    }

    @Test
    void concurrentCallersShareOnePull() {
        answering = new CountDownLatch(1);
        origin.set("first");
        PulledAnswers<String, String> answers = builder().build();

        var first = answers.get("list");
        var second = answers.get("list");
        await().until(() -> pulls.get() >= 1);
        assertThat(first).isNotDone();
        answering.countDown();

        assertThat(first.join().value()).isEqualTo("list:first");
        assertThat(second.join().value()).isEqualTo("list:first");
        assertThat(pulls).hasValue(1);
    }

    @Test
    void anAnswerIsFreshForTheTtlThenServedWhileARefreshRunsAndKeptWhenTheRefreshFails() {
        origin.set("first");
        PulledAnswers<String, String> answers =
                builder().rememberingFailuresBriefly().build();
        assertThat(answers.get("list").join().value()).isEqualTo("list:first");

        origin.set("second");
        clock.advance(TTL.minusSeconds(1));
        assertThat(answers.get("list").join().value()).isEqualTo("list:first");
        assertThat(pulls).hasValue(1);

        // Stale: served at once, refreshed in the background.
        clock.advance(Duration.ofSeconds(2));
        assertThat(answers.get("list").join().value()).isEqualTo("list:first");
        await().untilAsserted(
                        () -> assertThat(answers.get("list").join().value()).isEqualTo("list:second"));

        // Stale again, and the origin fails: the last good answer stays.
        origin.set(new OriginException(OriginException.Reason.UNAVAILABLE, "origin down"));
        clock.advance(TTL.plusSeconds(1));
        int before = pulls.get();
        assertThat(answers.get("list").join().value()).isEqualTo("list:second");
        await().until(() -> pulls.get() > before);
        await().untilAsserted(
                        () -> assertThat(answers.get("list").join().value()).isEqualTo("list:second"));
        // ... and the failing origin is not asked again on every request.
        int afterFailure = pulls.get();
        assertThat(answers.get("list").join().value()).isEqualTo("list:second");
        assertThat(pulls).hasValue(afterFailure);
    }

    @Test
    void aFailedPullIsRememberedForAShortWhile() {
        origin.set(new OriginException(OriginException.Reason.NOT_FOUND, "no such endpoint"));
        PulledAnswers<String, String> answers =
                builder().rememberingFailuresBriefly().build();

        assertThatThrownBy(() -> answers.get("search").join())
                .isInstanceOf(CompletionException.class)
                .hasMessageContaining("no such endpoint");
        assertThatThrownBy(() -> answers.get("search").join()).hasMessageContaining("no such endpoint");
        assertThat(pulls).hasValue(1);
    }

    @Test
    void aPullOrRefreshItsOriginsFullLaneRefusesIsNeitherRememberedNorStuckAndTheStaleAnswerIsStillServed()
            throws Exception {
        // A lane one task wide with no room to wait: while the task below runs, the next one is refused.
        HostLanes lanes = new HostLanes(executor, 1, 0);
        PulledAnswers<String, String> answers = builder()
                .rememberingFailuresBriefly()
                .pulledPerHost(lanes, key -> "origin.test")
                .build();
        CountDownLatch busy = holdTheLane(lanes);

        assertThatThrownBy(() -> answers.get("list").join())
                .hasCauseInstanceOf(LaneFullException.class)
                .hasMessageContaining("requests to origin.test wait already");
        busy.countDown();
        await().until(() -> lanes.tasks("origin.test") == 0);
        assertThat(answers.get("list").join().value())
                .as("the refusal was not remembered")
                .isEqualTo("list:origin");

        // Stale while the lane is full again: served, its refresh refused and tried again after the retry interval.
        CountDownLatch busyAgain = holdTheLane(lanes);
        origin.set("fresh");
        clock.advance(TTL.plusSeconds(1));
        assertThat(answers.get("list").join().value()).isEqualTo("list:origin");
        busyAgain.countDown();
        await().until(() -> lanes.tasks("origin.test") == 0);
        assertThat(answers.get("list").join().value()).isEqualTo("list:origin");
        assertThat(refreshes).as("refreshes that reached the source").hasValue(0);

        clock.advance(PulledAnswers.RETRY_INTERVAL.plusSeconds(1));
        answers.get("list").join();
        await().untilAsserted(
                        () -> assertThat(answers.get("list").join().value()).isEqualTo("list:fresh"));
    }

    /**
     * Runs a task on the lane of {@code origin.test} until the latch returned is counted down, once the lane's last
     * task has left it (a pull's answer is complete a moment before its task gives its place up).
     */
    private static CountDownLatch holdTheLane(HostLanes lanes) {
        await().until(() -> lanes.tasks("origin.test") == 0);
        CountDownLatch busy = new CountDownLatch(1);
        lanes.of("origin.test").execute(() -> {
            try {
                busy.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return busy;
    }

    @Test
    void theCacheDirectoryAnswersBeforeTheOriginAndCountsAsAHit() {
        stored.set(new PulledAnswers.Pulled<>("list:disk", clock.instant()));
        PulledAnswers<String, String> answers = builder().build();

        assertThat(answers.get("list").join().value()).isEqualTo("list:disk");
        assertThat(answers.get("list").join().value()).isEqualTo("list:disk");

        assertThat(pulls).hasValue(0);
        assertThat(metrics.lookups(MirrorMetrics.LookupResult.HIT)).isEqualTo(2);
        assertThat(metrics.lookups(MirrorMetrics.LookupResult.MISS)).isZero();
    }

    @Test
    void anAnswerFromTheOriginCountsAsAMissAndTheMirrorsOwnLookupsAreNotCounted() {
        PulledAnswers<String, String> answers = builder().build();

        assertThat(answers.getUncounted("list").join().value()).isEqualTo("list:origin");
        assertThat(metrics.lookups(MirrorMetrics.LookupResult.MISS)).isZero();
        answers.forget("list");
        assertThat(answers.get("list").join().value()).isEqualTo("list:origin");
        assertThat(metrics.lookups(MirrorMetrics.LookupResult.MISS)).isEqualTo(1);
    }

    @Test
    void aStaleStoredAnswerIsServedCountedStaleAndRefreshed() {
        stored.set(new PulledAnswers.Pulled<>(
                "list:disk", clock.instant().minus(TTL).minusSeconds(1)));
        PulledAnswers<String, String> answers = builder().build();

        assertThat(answers.get("list").join().value()).isEqualTo("list:disk");
        assertThat(metrics.lookups(MirrorMetrics.LookupResult.STALE)).isEqualTo(1);
        await().untilAsserted(
                        () -> assertThat(answers.get("list").join().value()).isEqualTo("list:origin"));
        assertThat(pulls).hasValue(1);
    }

    @Test
    void aRefreshAnotherInstanceRunsIsNotTriedAgainUntilTheRetryInterval() {
        granted = false;
        PulledAnswers<String, String> answers = builder().build();
        assertThat(answers.get("list").join().value()).isEqualTo("list:origin");
        origin.set("fresh");
        clock.advance(TTL.plusSeconds(1));

        assertThat(answers.get("list").join().value()).isEqualTo("list:origin");
        await().until(() -> refreshes.get() == 1);
        // Declined: the next requests do not ask again at once.
        await().untilAsserted(
                        () -> assertThat(answers.get("list").join().value()).isEqualTo("list:origin"));
        for (int i = 0; i < 5; i++) {
            answers.get("list").join();
        }
        assertThat(refreshes).hasValue(1);

        granted = true;
        clock.advance(PulledAnswers.RETRY_INTERVAL.plusSeconds(1));
        answers.get("list").join();
        await().untilAsserted(
                        () -> assertThat(answers.get("list").join().value()).isEqualTo("list:fresh"));
        assertThat(refreshes).hasValue(2);
    }

    @Test
    void aRememberedFailureIsRecalledAsTheOwnerSaysUntilTheMirrorsClockPassesItsMemory() {
        origin.set(new OriginException(OriginException.Reason.NOT_FOUND, "no such provider"));
        PulledAnswers<String, String> answers = builder()
                .rememberingFailures(
                        Duration.ofMinutes(1),
                        failure -> failure instanceof OriginException,
                        failure -> new OriginException(
                                OriginException.Reason.NOT_FOUND, failure.getMessage() + " (remembered)"))
                .build();

        assertThatThrownBy(() -> answers.get("gone").join()).hasMessageContaining("no such provider");
        assertThatThrownBy(() -> answers.get("gone").join()).hasMessageContaining("no such provider (remembered)");
        assertThat(pulls).hasValue(1);

        origin.set("back");
        clock.advance(Duration.ofMinutes(1).plusSeconds(1));
        assertThat(answers.get("gone").join().value()).isEqualTo("gone:back");
        assertThat(pulls).hasValue(2);
    }

    @Test
    void offlineAnAnswerIsNeverStaleNorRefreshed() {
        stored.set(new PulledAnswers.Pulled<>("list:disk", clock.instant().minus(TTL.multipliedBy(10))));
        PulledAnswers<String, String> answers = builder().offline(true).build();

        assertThat(answers.get("list").join().value()).isEqualTo("list:disk");
        assertThat(answers.get("list").join().value()).isEqualTo("list:disk");

        assertThat(refreshes).hasValue(0);
        assertThat(metrics.lookups(MirrorMetrics.LookupResult.HIT)).isEqualTo(2);
    }

    @Test
    void anExpiringAnswerIsNeverServedStaleTheNextCallersWaitForOnePullAndAFailureIsNoOldAnswer() {
        origin.set("first");
        PulledAnswers<String, String> answers = builder().expiring().build();
        assertThat(answers.get("release").join().value()).isEqualTo("release:first");
        clock.advance(TTL);
        assertThat(answers.get("release").join().value()).isEqualTo("release:first");
        assertThat(pulls).hasValue(1);

        // Past the TTL: gone, whoever asks waits for the one pull that replaces it.
        clock.advance(Duration.ofSeconds(1));
        answering = new CountDownLatch(1);
        origin.set("second");
        var first = answers.get("release");
        var second = answers.get("release");
        await().until(() -> pulls.get() == 2);
        assertThat(first).isNotDone();
        assertThat(second).isNotDone();
        assertThat(answers.inMemory("release")).isEmpty();
        var asked = clock.instant();
        clock.advance(Duration.ofSeconds(10));
        answering.countDown();
        assertThat(first.join()).isEqualTo(new PulledAnswers.Pulled<>("release:second", asked));
        assertThat(second.join().value()).isEqualTo("release:second");
        assertThat(pulls).hasValue(2);
        assertThat(refreshes).as("never refreshed in the background").hasValue(0);

        // Past the TTL again, and the origin fails: the failure is the answer, not the expired one.
        clock.advance(TTL.plusSeconds(1));
        origin.set(new OriginException(OriginException.Reason.UNAVAILABLE, "origin down"));
        assertThatThrownBy(() -> answers.get("release").join()).hasMessageContaining("origin down");
        origin.set("third");
        assertThat(answers.get("release").join().value()).isEqualTo("release:third");
    }

    @Test
    void anAbsentAnswerGoesToTheCallersThatWaitedForItsPullAndIsNeverHeldSoWhatAppearsLaterIsFoundAtOnce() {
        answering = new CountDownLatch(1);
        origin.set("none");
        PulledAnswers<String, String> answers = builder()
                .absentWhen(value -> value.endsWith(":none"))
                .monitored(metrics, "pins")
                .build();
        Supplier<Double> held = () -> metrics.registry()
                .get("cache.size")
                .tag("cache", "pins")
                .gauge()
                .value();

        var first = answers.get("pin");
        var second = answers.get("pin");
        await().until(() -> pulls.get() >= 1);
        answering.countDown();
        assertThat(first.join().value()).isEqualTo("pin:none");
        assertThat(second.join().value()).isEqualTo("pin:none");
        assertThat(pulls).as("one pull for the callers that waited for it").hasValue(1);
        assertThat(answers.inMemory("pin")).as("an absent answer is not held").isEmpty();
        assertThat(held.get()).as("nor does it take a place in memory").isZero();
        assertThat(answers.get("pin").join().value()).isEqualTo("pin:none");
        assertThat(pulls).as("the next caller pulls again").hasValue(2);

        origin.set("pinned");
        assertThat(answers.get("pin").join().value())
                .as("what the source holds afterwards is found at once")
                .isEqualTo("pin:pinned");
        assertThat(answers.inMemory("pin")).hasValue("pin:pinned");
        assertThat(answers.get("pin").join().value()).isEqualTo("pin:pinned");
        assertThat(pulls).as("a present answer is held").hasValue(3);
        assertThat(held.get()).isEqualTo(1.0);

        // A refresh that finds nothing any more drops the stale answer: the next caller pulls again.
        origin.set("none");
        clock.advance(TTL.plusSeconds(1));
        assertThat(answers.get("pin").join().value()).isEqualTo("pin:pinned");
        await().untilAsserted(() -> assertThat(answers.inMemory("pin")).isEmpty());
        assertThat(answers.get("pin").join().value()).isEqualTo("pin:none");
        assertThat(pulls).hasValue(5);
    }

    @Test
    void aFailedLoadIsToldOnceHoweverManyCallersWaitedForIt() {
        answering = new CountDownLatch(1);
        origin.set(new OriginException(OriginException.Reason.UNAVAILABLE, "origin down"));
        List<String> told = new CopyOnWriteArrayList<>();
        PulledAnswers<String, String> answers = builder()
                .onLoadFailure((key, failure) ->
                        told.add(key + ": " + Futures.cause(failure).getMessage()))
                .build();

        var first = answers.get("list");
        var second = answers.get("list");
        await().until(() -> pulls.get() == 1);
        answering.countDown();

        assertThatThrownBy(first::join).hasMessageContaining("origin down");
        assertThatThrownBy(second::join).hasMessageContaining("origin down");
        assertThat(pulls).hasValue(1);
        assertThat(told).containsExactly("list: origin down");
    }

    @Test
    void anImmutableAnswerIsNeverRefreshedAndReplacingItKeepsWhenItWasPulled() {
        PulledAnswers<String, String> answers = builder().immutable().build();
        PulledAnswers.Pulled<String> first = answers.get("release").join();
        clock.advance(TTL.multipliedBy(10));

        assertThat(answers.get("release").join()).isSameAs(first);
        assertThat(metrics.lookups(MirrorMetrics.LookupResult.HIT)).isEqualTo(1);
        assertThat(refreshes).hasValue(0);

        answers.replaceIfPresent("release", value -> value + "+h1");
        answers.replaceIfPresent("absent", value -> value + "+h1");
        assertThat(answers.get("release").join())
                .isEqualTo(new PulledAnswers.Pulled<>("release:origin+h1", first.fetchedAt()));
        assertThat(answers.inMemory("absent")).isEmpty();
        assertThat(pulls).hasValue(1);
    }

    @Test
    void anAnswerForgottenWhileItIsBeingReplacedStaysForgotten() throws Exception {
        PulledAnswers<String, String> answers = builder().immutable().build();
        answers.get("release").join();
        CountDownLatch changing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread replacing = new Thread(() -> answers.replaceIfPresent("release", value -> {
            changing.countDown();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return value + "+h1";
        }));
        replacing.start();
        changing.await(60, TimeUnit.SECONDS);
        // A purge forgets the answer while the h1: hashes of the one it replaces are being added.
        Thread forgetting = new Thread(() -> answers.forget("release"));
        forgetting.start();
        await().until(() -> forgetting.getState() == Thread.State.BLOCKED
                || forgetting.getState() == Thread.State.WAITING
                || forgetting.getState() == Thread.State.TERMINATED);
        release.countDown();
        replacing.join(60_000);
        forgetting.join(60_000);

        assertThat(answers.inMemory("release"))
                .as("the forgotten answer is not put back")
                .isEmpty();
    }

    @Test
    void aPullWaitingForAnotherAnswerHoldsNoExecutorThread() {
        ExecutorService one = Executors.newSingleThreadExecutor();
        try {
            PulledAnswers<String, String> lists =
                    PulledAnswers.builder(source, one, clock, TTL).build();
            PulledAnswers.Source<String, String> releases = new PulledAnswers.Source<>() {
                @Override
                public CompletableFuture<String> pulling(String key, Executor executor) {
                    return lists.getUncounted("list").thenApplyAsync(list -> list.value() + " -> " + key, executor);
                }

                @Override
                public String pull(String key) {
                    return pulling(key, Runnable::run).join();
                }
            };
            PulledAnswers<String, String> answers =
                    PulledAnswers.builder(releases, one, clock, TTL).build();

            assertThat(answers.get("1.0.0")
                            .orTimeout(10, TimeUnit.SECONDS)
                            .join()
                            .value())
                    .isEqualTo("list:origin -> 1.0.0");
        } finally {
            one.shutdownNow();
        }
    }
}
