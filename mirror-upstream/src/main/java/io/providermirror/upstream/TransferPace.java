package io.providermirror.upstream;

import java.time.Duration;

/**
 * The pace a transfer from an origin must keep, judged as its bytes arrive: at least {@code minBytesPerSecond}
 * averaged over each {@code window}, and nothing after its deadline. A trickle of bytes would otherwise hold a
 * thread, a socket and a temporary file for ever, since each read returns before any read timeout. One pace is used
 * for every transfer from origins: provider and module archives, and git fetches.
 */
public final class TransferPace {

    /** How a transfer stands after the bytes that just arrived. */
    public enum Verdict {
        /** Keeping the pace. */
        ON_PACE,
        /** Slower than the minimum rate over the last window ({@link #lastRate()} says how slow). */
        TOO_SLOW,
        /** Still arriving after its deadline. */
        PAST_DEADLINE
    }

    private final long minBytesPerSecond;
    private final long windowNanos;
    private final long deadlineNanos;
    private long windowStarted;
    private long windowBytes;
    private long lastRate;

    /**
     * @param startNanos    when the transfer started ({@link System#nanoTime()})
     * @param deadlineNanos the {@link System#nanoTime()} after which no byte is taken
     */
    public TransferPace(long minBytesPerSecond, Duration window, long startNanos, long deadlineNanos) {
        if (minBytesPerSecond < 0) {
            throw new IllegalArgumentException("minBytesPerSecond: " + minBytesPerSecond + " (expected: >= 0)");
        }
        if (window.isZero() || window.isNegative()) {
            throw new IllegalArgumentException("window: " + window + " (expected: > 0)");
        }
        this.minBytesPerSecond = minBytesPerSecond;
        this.windowNanos = window.toNanos();
        this.windowStarted = startNanos;
        this.deadlineNanos = deadlineNanos;
    }

    /** Judges {@code bytes} that arrived at {@code nowNanos} ({@link System#nanoTime()}). */
    public Verdict arrived(long bytes, long nowNanos) {
        if (nowNanos - deadlineNanos > 0) {
            return Verdict.PAST_DEADLINE;
        }
        windowBytes += bytes;
        long window = nowNanos - windowStarted;
        if (window >= windowNanos) {
            lastRate = (long) (windowBytes / (window / 1e9));
            if (lastRate < minBytesPerSecond) {
                return Verdict.TOO_SLOW;
            }
            windowStarted = nowNanos;
            windowBytes = 0;
        }
        return Verdict.ON_PACE;
    }

    /** The rate measured over the last whole window, in bytes per second. */
    public long lastRate() {
        return lastRate;
    }

    public long minBytesPerSecond() {
        return minBytesPerSecond;
    }
}
