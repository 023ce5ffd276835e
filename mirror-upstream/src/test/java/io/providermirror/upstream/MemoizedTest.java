package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A value made once on first use, however many threads ask while it is being made; a failed making is not kept. */
final class MemoizedTest {

    @Test
    void nothingIsMadeUntilAskedAndThenOnlyOnce() {
        AtomicInteger made = new AtomicInteger();
        Memoized<Object> value = new Memoized<>(() -> {
            made.incrementAndGet();
            return new Object();
        });

        assertThat(made).hasValue(0);
        assertThat(value.isMade()).isFalse();
        Object first = value.get();
        assertThat(value.get()).isSameAs(first);
        assertThat(made).hasValue(1);
        assertThat(value.isMade()).isTrue();
    }

    @Test
    void threadsAskingWhileItIsBeingMadeWaitForThatOneValue() throws Exception {
        int threads = 6;
        AtomicInteger made = new AtomicInteger();
        CountDownLatch finish = new CountDownLatch(1);
        Memoized<Object> value = new Memoized<>(() -> {
            made.incrementAndGet();
            try {
                finish.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new Object();
        });
        List<Thread> askers = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread thread = new Thread(r, "asker");
            synchronized (askers) {
                askers.add(thread);
            }
            return thread;
        });
        try {
            List<Future<Object>> answers = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                answers.add(pool.submit(value::get));
            }
            // One thread is making the value; every other one is held until it is made, none makes its own.
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                synchronized (askers) {
                    return askers.size() == threads
                            && askers.stream()
                                            .filter(t -> t.getState() == Thread.State.BLOCKED)
                                            .count()
                                    == threads - 1;
                }
            });
            assertThat(made).hasValue(1);
            finish.countDown();

            Object first = answers.get(0).get(10, TimeUnit.SECONDS);
            for (Future<Object> answer : answers) {
                assertThat(answer.get(10, TimeUnit.SECONDS)).isSameAs(first);
            }
            assertThat(made).hasValue(1);
        } finally {
            finish.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void aFailedMakingIsNotKeptSoTheNextCallerTriesAgain() {
        AtomicInteger attempts = new AtomicInteger();
        Memoized<String> value = new Memoized<>(() -> {
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("the JDK offers no TLS context");
            }
            return "made";
        });

        assertThatThrownBy(value::get).hasMessage("the JDK offers no TLS context");
        assertThat(value.isMade()).isFalse();
        assertThat(value.get()).isEqualTo("made");
        assertThat(attempts).hasValue(2);
    }
}
