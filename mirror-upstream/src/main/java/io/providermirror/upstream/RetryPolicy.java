package io.providermirror.upstream;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.function.DoubleSupplier;

/**
 * When to try an origin request again: on connection failures, {@code 429} and {@code 5xx} other than
 * {@code 501}, at most {@code maxAttempts} times, after an exponential backoff with full jitter (or the
 * origin's {@code Retry-After}, whichever is longer). A pure value: no clock, no sleeping.
 */
public record RetryPolicy(int maxAttempts, Duration baseDelay, Duration maxDelay) {

    /** Three attempts, backing off from 250 ms up to 2 s. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(3, Duration.ofMillis(250), Duration.ofSeconds(2));

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts: " + maxAttempts + " (expected: >= 1)");
        }
        if (baseDelay.isNegative() || maxDelay.compareTo(baseDelay) < 0) {
            throw new IllegalArgumentException(
                    "baseDelay/maxDelay: " + baseDelay + "/" + maxDelay + " (expected: 0 <= baseDelay <= maxDelay)");
        }
    }

    /** True for statuses worth another attempt. */
    public static boolean isRetryableStatus(int status) {
        return status == 429 || status >= 500 && status != 501;
    }

    /**
     * The pause before attempt {@code nextAttempt} (2 for the first retry): uniformly random between zero and
     * {@code baseDelay * 2^(nextAttempt - 2)}, capped at {@code maxDelay}, and never shorter than the origin's
     * {@code Retry-After}.
     */
    public Duration delayBefore(int nextAttempt, Optional<Duration> retryAfter, DoubleSupplier random) {
        long ceiling = baseDelay.toMillis() << Math.min(20, Math.max(0, nextAttempt - 2));
        long capped = Math.min(ceiling, maxDelay.toMillis());
        Duration jittered = Duration.ofMillis((long) (random.getAsDouble() * capped));
        return retryAfter.filter(r -> r.compareTo(jittered) > 0).orElse(jittered);
    }

    /** Reads a {@code Retry-After} header: delay-seconds or an HTTP date. */
    public static Optional<Duration> parseRetryAfter(String header, Instant now) {
        if (header == null || header.isBlank()) {
            return Optional.empty();
        }
        String value = header.trim();
        if (value.chars().allMatch(Character::isDigit) && value.length() <= 9) {
            return Optional.of(Duration.ofSeconds(Long.parseLong(value)));
        }
        try {
            Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME)
                    .toInstant();
            Duration delay = Duration.between(now, at);
            return Optional.of(delay.isNegative() ? Duration.ZERO : delay);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
