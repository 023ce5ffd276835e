package io.providermirror.server.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * What each policy rule holds back now, as far as this instance has seen: the versions a deny rule refused or left
 * out of a list, those the release-age quarantine holds (with the time each becomes available), and those an
 * {@code allowEarly} exception let in, each recorded where the decision is made. In memory only, and bounded: at
 * most {@link #MAX_VERSIONS} versions, each forgotten when it comes in (a deny rule's a day after it was last judged); what the status page shows.
 */
public final class PolicyHolds {

    /** The most versions remembered, over all rules. */
    public static final int MAX_VERSIONS = 10_000;
    /** How many of a rule's versions {@link #now} names (all are counted). */
    public static final int NAMED = 20;

    private static final Duration REMEMBERED = Duration.ofDays(1);
    private static final Duration LONGEST = Duration.ofDays(3_650);

    /** What one rule holds back now: how many versions, and up to {@link #NAMED} of them with when each comes in. */
    public record Held(int count, List<Version> versions) {}

    /** A version held: {@code hostname/namespace/type version} (or a module's), and when it becomes available. */
    public record Version(String subject, Optional<Instant> until) {}

    private record Key(String rule, String subject) {}

    private final Clock clock;
    private final Cache<Key, Optional<Instant>> held;

    public PolicyHolds(Clock clock) {
        this.clock = clock;
        this.held = Caffeine.newBuilder()
                .maximumSize(MAX_VERSIONS)
                .expireAfter(new Expiry<Key, Optional<Instant>>() {
                    @Override
                    public long expireAfterCreate(Key key, Optional<Instant> until, long nowNanos) {
                        return remembered(until);
                    }

                    @Override
                    public long expireAfterUpdate(
                            Key key, Optional<Instant> until, long nowNanos, long currentDuration) {
                        return remembered(until);
                    }

                    @Override
                    public long expireAfterRead(Key key, Optional<Instant> until, long nowNanos, long currentDuration) {
                        return currentDuration;
                    }
                })
                .ticker(() -> nanos(clock.instant()))
                .executor(Runnable::run)
                .build();
    }

    /**
     * Records that rule {@code rule} (as the status page names it: {@code policy.deny[0]}) holds {@code subject} back
     * (or, for an exception, lets it in) until {@code until}; forever while the rule stands when empty.
     */
    public void held(String rule, String subject, Optional<Instant> until) {
        held.put(new Key(rule, subject), until);
    }

    /** By rule: what it holds back now (a release-age hold whose time has come is left out). */
    public Map<String, Held> now() {
        Instant now = clock.instant();
        Map<String, List<Version>> byRule = new TreeMap<>();
        held.asMap().forEach((key, until) -> {
            if (until.isEmpty() || now.isBefore(until.get())) {
                byRule.computeIfAbsent(key.rule(), rule -> new ArrayList<>()).add(new Version(key.subject(), until));
            }
        });
        Map<String, Held> answer = new TreeMap<>();
        byRule.forEach((rule, versions) -> {
            versions.sort(Comparator.comparing(Version::subject));
            answer.put(
                    rule,
                    new Held(versions.size(), List.copyOf(versions.subList(0, Math.min(NAMED, versions.size())))));
        });
        return answer;
    }

    /** How long a version is remembered: until it comes in, else a day after it was last judged. */
    private long remembered(Optional<Instant> until) {
        // Capped: an exception may expire centuries away, beyond what nanoseconds in a long can say.
        return until.map(at -> Duration.between(clock.instant(), at))
                .map(left -> left.isNegative() ? 0 : left.compareTo(LONGEST) > 0 ? LONGEST.toNanos() : left.toNanos())
                .orElse(REMEMBERED.toNanos());
    }

    private static long nanos(Instant at) {
        return TimeUnit.SECONDS.toNanos(at.getEpochSecond()) + at.getNano();
    }
}
