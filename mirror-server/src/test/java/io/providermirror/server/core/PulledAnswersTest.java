package io.providermirror.server.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.providermirror.testkit.SettableClock;
import io.providermirror.upstream.OriginException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

final class PulledAnswersTest {

    private static final Duration TTL = Duration.ofMinutes(5);

    private final ExecutorService executor = Executors.newFixedThreadPool(4);
    private final SettableClock clock = new SettableClock();
    private final AtomicInteger pulls = new AtomicInteger();
    /** What the origin answers next: a value, or a failure to throw. */
    private final AtomicReference<Object> origin = new AtomicReference<>("first");

    private PulledAnswers<String, String> answers(CountDownLatch release) {
        return PulledAnswers.<String, String>builder(
                        key -> {
                            pulls.incrementAndGet();
                            try {
                                release.await(30, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            Object next = origin.get();
                            if (next instanceof RuntimeException failure) {
                                throw failure;
                            }
                            return key + ":" + next;
                        },
                        executor,
                        clock,
                        TTL)
                .weighing(String::length, 1 << 20)
                .rememberingFailuresBriefly()
                .build();
    }

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    @Test
    void concurrentCallersShareOnePull() {
        CountDownLatch release = new CountDownLatch(1);
        PulledAnswers<String, String> answers = answers(release);

        var first = answers.get("list");
        var second = answers.get("list");
        await().until(() -> pulls.get() >= 1);
        assertThat(first).isNotDone();
        release.countDown();

        assertThat(first.join().value()).isEqualTo("list:first");
        assertThat(second.join().value()).isEqualTo("list:first");
        assertThat(pulls).hasValue(1);
    }

    @Test
    void anAnswerIsFreshForTheTtlThenServedWhileARefreshRunsAndKeptWhenTheRefreshFails() {
        PulledAnswers<String, String> answers = answers(new CountDownLatch(0));
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
        PulledAnswers<String, String> answers = answers(new CountDownLatch(0));

        assertThatThrownBy(() -> answers.get("search").join())
                .isInstanceOf(CompletionException.class)
                .hasMessageContaining("no such endpoint");
        assertThatThrownBy(() -> answers.get("search").join()).hasMessageContaining("no such endpoint");
        assertThat(pulls).hasValue(1);
    }
}
