package io.providermirror.server.core;

import io.providermirror.upstream.OriginException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the mirror does with futures: unwrap their failures, bound how long a client waits for one, and run upkeep
 * again and again.
 */
public final class Futures {

    private static final Logger LOG = LoggerFactory.getLogger(Futures.class);

    private Futures() {}

    public static Throwable cause(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * {@code work} as a client waits for it: at most {@code timeout}, then a timeout naming {@code what} and the
     * origin ({@code origin}, as people know it); the work itself goes on, so a retry finds it done. Work already done
     * (a warm answer) is returned as it is, and the two texts, made only for the timeout, are never made for it.
     */
    public static <T> CompletableFuture<T> withinDeadline(
            CompletableFuture<T> work, Supplier<String> what, Supplier<String> origin, Duration timeout) {
        if (work.isDone()) {
            return work;
        }
        return bounded(work.copy(), what, origin, timeout);
    }

    /**
     * As {@link #withinDeadline}, for work whose value is the caller's own to close (an archive opened for this one
     * request, holding a file and the lease that keeps the archive from eviction): a value that arrives after the
     * client was told of the timeout is closed, since nobody will take it.
     */
    public static <T extends AutoCloseable> CompletableFuture<T> ownedWithinDeadline(
            CompletableFuture<T> work, Supplier<String> what, Supplier<String> origin, Duration timeout) {
        if (work.isDone()) {
            return work;
        }
        CompletableFuture<T> taken = new CompletableFuture<>();
        work.whenComplete((value, failure) -> {
            if (failure != null) {
                taken.completeExceptionally(failure);
            } else if (!taken.complete(value)) {
                // The deadline won: the client has its timeout, and this value no taker.
                closeLate(value);
            }
        });
        return bounded(taken, what, origin, timeout);
    }

    private static void closeLate(AutoCloseable value) {
        try {
            value.close();
        } catch (Exception e) {
            LOG.debug("closing what came after its client's deadline failed: {}", e.toString());
        }
    }

    /** {@code pending}, completed with the timeout naming {@code what} and {@code origin} after {@code timeout}. */
    private static <T> CompletableFuture<T> bounded(
            CompletableFuture<T> pending, Supplier<String> what, Supplier<String> origin, Duration timeout) {
        return pending.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).exceptionally(failure -> {
            Throwable cause = cause(failure);
            if (cause instanceof TimeoutException) {
                throw new OriginException(
                        OriginException.Reason.TIMEOUT,
                        what.get() + ": its origin " + origin.get() + " did not answer within " + timeout.toMillis()
                                + " ms; the mirror goes on fetching it, so trying again shortly may succeed");
            }
            throw failure instanceof CompletionException completion ? completion : new CompletionException(cause);
        });
    }

    /**
     * Runs {@code task} on {@code executor} every {@code interval} (each run {@code interval} after the last one ended)
     * until the executor refuses it: the mirror is stopping.
     */
    public static void every(Duration interval, Executor executor, Runnable task) {
        try {
            CompletableFuture.runAsync(
                    () -> {
                        task.run();
                        every(interval, executor, task);
                    },
                    CompletableFuture.delayedExecutor(interval.toMillis(), TimeUnit.MILLISECONDS, executor));
        } catch (RejectedExecutionException closing) {
            // the mirror is stopping
        }
    }
}
