package io.providermirror.server.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What the release-age quarantine's dry-run mode logs: each version it would hold back once per {@link #INTERVAL}
 * (whether listed or asked for, however many requests name it), not once per request. Bounded: at most
 * {@link #MAX_VERSIONS} versions are remembered; one forgotten early is logged again, which costs a line, no more.
 */
final class DryRunLog {

    /** How long a version logged is not logged again. */
    static final Duration INTERVAL = Duration.ofHours(1);
    /** The most versions remembered as logged. */
    static final int MAX_VERSIONS = 10_000;

    private final Cache<String, Boolean> logged;
    private final Consumer<String> log;

    /** @param clock the quarantine's clock, which the interval is measured on */
    DryRunLog(Clock clock, Consumer<String> log) {
        this.log = log;
        this.logged = Caffeine.newBuilder()
                .maximumSize(MAX_VERSIONS)
                .expireAfterWrite(INTERVAL)
                .ticker(() -> nanos(clock.instant()))
                .executor(Runnable::run)
                .build();
    }

    /** Logs {@code line} unless the version {@code subject} ({@code address version}) was logged this interval. */
    void wouldHold(String subject, String line) {
        if (logged.asMap().putIfAbsent(subject, Boolean.TRUE) == null) {
            log.accept(line);
        }
    }

    /** How many versions are remembered as logged now. */
    long remembered() {
        logged.cleanUp();
        return logged.estimatedSize();
    }

    private static long nanos(Instant at) {
        return TimeUnit.SECONDS.toNanos(at.getEpochSecond()) + at.getNano();
    }
}
