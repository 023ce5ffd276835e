package io.providermirror.server.metrics;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/**
 * The last hour of traffic in per-minute buckets, kept in memory for the status page's chart: provider
 * requests (version lists, version documents, archives), how many the cache answered, and archive bytes
 * served. A fixed ring of {@value #MINUTES} buckets, each reset when its minute comes round again, so memory
 * stays constant however long the mirror runs. The clock is injected so tests move time instead of waiting.
 */
public final class TrafficHistory {

    /** How many minutes are kept. */
    public static final int MINUTES = 60;

    /** One minute's traffic, starting at {@code start}. */
    public record Minute(Instant start, long requests, long hits, long bytes) {
        /** The share of requests answered from the cache, when there were any. */
        public OptionalDouble hitRate() {
            return requests == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) hits / requests);
        }
    }

    private final Clock clock;
    private final long[] minuteOf = new long[MINUTES];
    private final long[] requests = new long[MINUTES];
    private final long[] hits = new long[MINUTES];
    private final long[] bytes = new long[MINUTES];

    public TrafficHistory(Clock clock) {
        this.clock = clock;
        java.util.Arrays.fill(minuteOf, Long.MIN_VALUE);
    }

    /** One provider request, answered from the cache ({@code hit}) or from the origin. */
    public synchronized void lookup(boolean hit) {
        int slot = current();
        requests[slot]++;
        if (hit) {
            hits[slot]++;
        }
    }

    /** Archive bytes sent to a client. */
    public synchronized void served(long count) {
        bytes[current()] += count;
    }

    /** The last {@value #MINUTES} minutes, oldest first, ending with the current (partial) minute. */
    public synchronized List<Minute> lastHour() {
        long now = epochMinute();
        List<Minute> minutes = new ArrayList<>(MINUTES);
        for (long minute = now - MINUTES + 1; minute <= now; minute++) {
            int slot = slot(minute);
            Instant start = Instant.ofEpochSecond(minute * 60);
            minutes.add(
                    minuteOf[slot] == minute
                            ? new Minute(start, requests[slot], hits[slot], bytes[slot])
                            : new Minute(start, 0, 0, 0));
        }
        return minutes;
    }

    /** The current minute's slot, emptied first when it still holds a minute an hour or more ago. */
    private int current() {
        long minute = epochMinute();
        int slot = slot(minute);
        if (minuteOf[slot] != minute) {
            minuteOf[slot] = minute;
            requests[slot] = 0;
            hits[slot] = 0;
            bytes[slot] = 0;
        }
        return slot;
    }

    private long epochMinute() {
        return Math.floorDiv(clock.millis(), 60_000L);
    }

    private static int slot(long minute) {
        return (int) Math.floorMod(minute, (long) MINUTES);
    }
}
