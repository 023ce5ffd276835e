package io.providermirror.server.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.upstream.OriginException;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

final class FuturesTest {

    /** Something a request owns and must close: counts its closes. */
    private static final class Owned implements AutoCloseable {
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    @Test
    void anOwnedValueThatArrivesAfterTheDeadlineIsClosedAndTheClientHasTheTimeout() {
        CompletableFuture<Owned> work = new CompletableFuture<>();
        CompletableFuture<Owned> answer =
                Futures.ownedWithinDeadline(work, () -> "the archive", () -> "example.test", Duration.ofMillis(20));

        assertThatThrownBy(answer::join)
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOf(OriginException.class)
                .hasMessageContaining("the archive: its origin example.test did not answer within 20 ms");
        Owned late = new Owned();
        work.complete(late);

        assertThat(late.closes).as("closed: nobody will take it").hasValue(1);
    }

    @Test
    void anOwnedValueInTimeIsTheClientsAndStaysOpen() {
        CompletableFuture<Owned> work = new CompletableFuture<>();
        CompletableFuture<Owned> answer =
                Futures.ownedWithinDeadline(work, () -> "the archive", () -> "example.test", Duration.ofMinutes(5));
        Owned value = new Owned();

        work.complete(value);

        assertThat(answer.join()).isSameAs(value);
        assertThat(value.closes).hasValue(0);
    }

    @Test
    void aFailureOfTheOwnedWorkIsTheClientsAsItIs() {
        CompletableFuture<Owned> work = new CompletableFuture<>();
        CompletableFuture<Owned> answer =
                Futures.ownedWithinDeadline(work, () -> "the archive", () -> "example.test", Duration.ofMinutes(5));

        work.completeExceptionally(new IOException("the disk is gone"));

        assertThatThrownBy(answer::join).cause().isInstanceOf(IOException.class).hasMessage("the disk is gone");
    }

    @Test
    void workAlreadyDoneIsAnsweredAsItIs() {
        Owned value = new Owned();
        CompletableFuture<Owned> done = CompletableFuture.completedFuture(value);

        assertThat(Futures.ownedWithinDeadline(done, () -> "x", () -> "y", Duration.ofMillis(1)))
                .isSameAs(done);
        assertThat(Futures.withinDeadline(done, () -> "x", () -> "y", Duration.ofMillis(1)))
                .isSameAs(done);
    }

    @Test
    void aSharedValueAfterTheDeadlineIsLeftAlone() {
        CompletableFuture<Owned> work = new CompletableFuture<>();
        CompletableFuture<Owned> answer =
                Futures.withinDeadline(work, () -> "the version list", () -> "example.test", Duration.ofMillis(20));

        assertThatThrownBy(answer::join).cause().isInstanceOf(OriginException.class);
        Owned late = new Owned();
        work.complete(late);

        assertThat(late.closes).as("others may be waiting for the same work").hasValue(0);
        assertThat(work.join()).isSameAs(late);
    }
}
