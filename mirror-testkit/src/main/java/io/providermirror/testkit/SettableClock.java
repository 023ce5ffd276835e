package io.providermirror.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock a test moves on, for what depends on time passing (expiring URLs) without waiting for it. */
public final class SettableClock extends Clock {

    private volatile Instant now;

    /** A clock that starts now. */
    public SettableClock() {
        this(Instant.now());
    }

    /** A clock that starts at {@code start}. */
    public SettableClock(Instant start) {
        this.now = start;
    }

    /** Moves the clock on by {@code duration}. */
    public void advance(Duration duration) {
        now = now.plus(duration);
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
