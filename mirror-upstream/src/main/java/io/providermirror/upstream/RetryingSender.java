package io.providermirror.upstream;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One logical GET: attempts (each following its redirects) and the pauses between them, as {@link RetryPolicy}
 * says, all within one deadline, so a caller gets an answer (or a clear error that counts the attempts) in time.
 */
final class RetryingSender<H extends Hop> {

    /** Logged under the client's name, as before retries had a class of their own: operators filter on it. */
    private static final Logger LOG = LoggerFactory.getLogger(OriginHttpClient.class);

    private final RedirectFollower<H> redirects;
    private final RetryPolicy retry;
    private final boolean offline;
    private final OriginHttpClient.Sleeper sleeper;

    RetryingSender(
            RedirectFollower<H> redirects, OriginHttpClient.Settings settings, OriginHttpClient.Sleeper sleeper) {
        this.redirects = redirects;
        this.retry = settings.retry();
        this.offline = settings.offline();
        this.sleeper = sleeper;
    }

    /** Sends a GET, retrying as {@link RetryPolicy} says, all within {@code timeout}. */
    H send(String origin, URI start, String what, Duration timeout, String bearerToken) {
        if (offline) {
            throw new OriginException(
                    OriginException.Reason.NOT_FOUND,
                    what + " is not in this mirror's cache, and " + "upstream.offline is set, so "
                            + start.getAuthority() + " is not asked");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        OriginException last = null;
        for (int attempt = 1; ; attempt++) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                throw gaveUp(last, attempt - 1, timeout, what, start);
            }
            Optional<Duration> retryAfter = Optional.empty();
            try {
                H response = redirects.send(origin, start, what, Duration.ofNanos(remaining), bearerToken);
                if (!RetryPolicy.isRetryableStatus(response.status()) || attempt >= retry.maxAttempts()) {
                    return response;
                }
                response.discard();
                last = OriginHttpClient.statusError(response.uri(), response.status(), what);
                retryAfter = RetryPolicy.parseRetryAfter(
                        response.header("retry-after").orElse(null), java.time.Instant.now());
            } catch (RedirectFollower.AttemptFailed failed) {
                if (!failed.retryable() || attempt >= retry.maxAttempts()) {
                    throw attempt > 1 ? withAttempts(failed.exception(), attempt) : failed.exception();
                }
                last = failed.exception();
            }
            Duration pause = retry.delayBefore(
                    attempt + 1, retryAfter, java.util.concurrent.ThreadLocalRandom.current()::nextDouble);
            if (System.nanoTime() + pause.toNanos() >= deadline) {
                throw withAttempts(last, attempt);
            }
            LOG.info(
                    "{}: {}; trying again in {} ms (attempt {} of {})",
                    what,
                    last.getMessage(),
                    pause.toMillis(),
                    attempt + 1,
                    retry.maxAttempts());
            try {
                sleeper.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new OriginException(OriginException.Reason.UNAVAILABLE, what + ": interrupted", e);
            }
        }
    }

    private static OriginException gaveUp(OriginException last, int attempts, Duration timeout, String what, URI uri) {
        if (last == null) {
            return new OriginException(
                    OriginException.Reason.TIMEOUT,
                    what + ": " + uri.getAuthority() + " did not answer within " + timeout.toMillis() + " ms");
        }
        return withAttempts(last, attempts);
    }

    private static OriginException withAttempts(OriginException last, int attempts) {
        return new OriginException(
                last.reason(),
                last.getMessage() + " (gave up after " + attempts + (attempts == 1 ? " attempt)" : " attempts)"),
                last);
    }
}
