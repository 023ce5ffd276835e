package io.providermirror.server.config;

import java.time.Duration;

/**
 * {@code cache.retention}: archives no client has requested for {@code unusedFor} are removed (off when absent),
 * checked every {@code interval} (one hour when absent), beside the size bound {@code cache.maxSize}.
 */
public record RetentionConfig(Duration unusedFor, Duration interval) {

    /** How often retention looks when {@code interval} is not given. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofHours(1);

    public RetentionConfig {
        if (unusedFor != null && (unusedFor.isZero() || unusedFor.isNegative())) {
            throw new IllegalArgumentException("unusedFor: " + unusedFor + " (expected: > 0, e.g. 90d)");
        }
        interval = interval == null ? DEFAULT_INTERVAL : interval;
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("interval: " + interval + " (expected: > 0, e.g. 1h)");
        }
    }

    /** Retention off. */
    public static RetentionConfig off() {
        return new RetentionConfig(null, null);
    }

    /** Whether retention removes anything. */
    public boolean enabled() {
        return unusedFor != null;
    }
}
