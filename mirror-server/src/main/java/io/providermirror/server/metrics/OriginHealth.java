package io.providermirror.server.metrics;

import io.providermirror.upstream.OriginObserver;
import io.providermirror.upstream.Urls;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the status page says about each origin host: when it last answered, when it last failed and why,
 * and how many requests ended each way. Bounded like the host tag. The failure is kept as the status page
 * shows it: URLs without their query strings (pre-signed download URLs are credentials).
 */
public final class OriginHealth implements OriginObserver {

    /** One host's record, as of now. */
    public record Snapshot(String host, long succeeded, long failed, Instant lastSuccess, Instant lastFailure,
                           String lastFailureMessage) {
        /** Healthy when the last request succeeded (or ended "not found", which is an answer). */
        public boolean healthy() {
            return lastFailure == null || lastSuccess != null && lastSuccess.isAfter(lastFailure);
        }
    }

    private static final class Record {
        final AtomicLong succeeded = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        volatile Instant lastSuccess;
        volatile Instant lastFailure;
        volatile String lastFailureMessage;
    }

    private final Clock clock;
    private final BoundedTagValues hosts = new BoundedTagValues(MirrorMeters.MAX_HOSTS);
    private final ConcurrentHashMap<String, Record> records = new ConcurrentHashMap<>();

    public OriginHealth(Clock clock) {
        this.clock = clock;
    }

    @Override
    public void requestCompleted(String host, Operation operation, Outcome outcome, Duration latency, String failure) {
        Record record = records.computeIfAbsent(hosts.value(host), h -> new Record());
        if (outcome == Outcome.SUCCESS || outcome == Outcome.NOT_FOUND) {
            record.succeeded.incrementAndGet();
            record.lastSuccess = clock.instant();
        } else {
            record.failed.incrementAndGet();
            record.lastFailure = clock.instant();
            record.lastFailureMessage = Urls.redactedIn(failure);
        }
    }

    /** Every host contacted since start-up, by name. */
    public List<Snapshot> snapshot() {
        return records.entrySet().stream()
                .map(e -> new Snapshot(e.getKey(), e.getValue().succeeded.get(), e.getValue().failed.get(),
                        e.getValue().lastSuccess, e.getValue().lastFailure, e.getValue().lastFailureMessage))
                .sorted(Comparator.comparing(Snapshot::host))
                .toList();
    }
}
