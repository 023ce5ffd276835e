package io.providermirror.server.core;

import java.time.Duration;

/**
 * How much of the mirror archive downloads from origins may hold: {@code maxConcurrent} at once, of which
 * {@code maxConcurrentPerHost} for one origin host; each for at most {@code deadline}, and no slower than
 * {@code minBytesPerSecond} averaged over each {@code rateWindow}.
 */
public record FillBounds(
        int maxConcurrent, int maxConcurrentPerHost, Duration deadline, long minBytesPerSecond, Duration rateWindow) {

    /** Generous bounds, for tools and tests that do not care. */
    public static final FillBounds DEFAULT = new FillBounds(64, 16, Duration.ofHours(1), 1024, Duration.ofSeconds(30));

    public FillBounds {
        if (maxConcurrent < 1) {
            throw new IllegalArgumentException("maxConcurrent: " + maxConcurrent + " (expected: > 0)");
        }
        if (maxConcurrentPerHost < 1 || maxConcurrentPerHost > maxConcurrent) {
            throw new IllegalArgumentException(
                    "maxConcurrentPerHost: " + maxConcurrentPerHost + " (expected: 1 to " + maxConcurrent + ")");
        }
        if (deadline.isZero() || deadline.isNegative()) {
            throw new IllegalArgumentException("deadline: " + deadline + " (expected: > 0)");
        }
        if (minBytesPerSecond < 0) {
            throw new IllegalArgumentException("minBytesPerSecond: " + minBytesPerSecond + " (expected: >= 0)");
        }
        if (rateWindow.isZero() || rateWindow.isNegative()) {
            throw new IllegalArgumentException("rateWindow: " + rateWindow + " (expected: > 0)");
        }
    }
}
