package io.providermirror.server.metrics;

import io.providermirror.model.Urls;
import io.providermirror.upstream.OriginObserver;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the status page says about each origin, by its hostname (the first segment of provider addresses,
 * e.g. {@code registry.terraform.io}): when it last answered, when it last failed and why, how many requests
 * ended each way, how many of its releases and archives were refused by verification, and which authorities
 * were contacted for it. Also the last {@value #RECENT_PROBLEMS} problems of any origin. Bounded like the host
 * tag. Failures are kept as the status page shows them: URLs without their query strings (pre-signed download
 * URLs are credentials).
 */
public final class OriginHealth implements OriginObserver {

    /** How many recent problems are kept (older ones are dropped). */
    public static final int RECENT_PROBLEMS = 20;
    /** How many contacted authorities are kept per origin. */
    static final int MAX_AUTHORITIES = 8;

    /**
     * One origin's record, as of now; {@code contacted} are the authorities requests went to for it;
     * {@code unreachable} is true when its last failure was a request that got no usable answer (not a refused
     * release), which a recheck can clear.
     */
    public record Snapshot(
            String origin,
            List<String> contacted,
            long succeeded,
            long failed,
            long refused,
            Instant lastSuccess,
            Instant lastFailure,
            String lastFailureMessage,
            boolean unreachable) {
        /**
         * Healthy when the last thing that happened was a success (or "not found", which is an answer): a failed
         * request or a refused release after the last success makes the origin failing.
         */
        public boolean healthy() {
            return lastFailure == null || lastSuccess != null && lastSuccess.isAfter(lastFailure);
        }
    }

    /**
     * One thing that went wrong: when it last happened, with which origin, for which provider or module (null if not
     * known), what, and how often since start-up (a CLI's retries of one failure are one problem).
     */
    public record Problem(Instant time, String origin, String subject, String what, long count) {

        boolean sameAs(Problem other) {
            return origin.equals(other.origin)
                    && java.util.Objects.equals(subject, other.subject)
                    && what.equals(other.what);
        }
    }

    /**
     * A provider or module address in a failure message ({@code the version list of example.test/acme/x: ...},
     * {@code the download of module example.test/acme/x/aws 1.0.0: ...}), with the version and platform after it.
     */
    private static final java.util.regex.Pattern SUBJECT =
            java.util.regex.Pattern.compile(" of (?:module )?([a-z0-9.-]+(?::[0-9]{1,5})?(?:/[A-Za-z0-9_.-]+){2,3}"
                    + "(?: [0-9][0-9A-Za-z.+-]*(?: [a-z0-9]+_[a-z0-9]+)?)?)(?=[: ]|$)");

    private static final class Tally {
        final AtomicLong succeeded = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final AtomicLong refused = new AtomicLong();
        final Set<String> contacted = ConcurrentHashMap.newKeySet();
        volatile Instant lastSuccess;
        volatile Instant lastFailure;
        volatile String lastFailureMessage;
        volatile boolean unreachable;
    }

    private final Clock clock;
    private final BoundedTagValues origins = new BoundedTagValues(MeterNames.MAX_HOSTS);
    private final ConcurrentHashMap<String, Tally> records = new ConcurrentHashMap<>();
    private final ArrayDeque<Problem> problems = new ArrayDeque<>(RECENT_PROBLEMS);

    public OriginHealth(Clock clock) {
        this.clock = clock;
    }

    @Override
    public void requestCompleted(
            String origin, String host, Operation operation, Outcome outcome, Duration latency, String failure) {
        Tally record = record(origin == null ? host : origin);
        if (record.contacted.size() < MAX_AUTHORITIES) {
            record.contacted.add(host);
        }
        Instant now = clock.instant();
        if (outcome == Outcome.SUCCESS || outcome == Outcome.NOT_FOUND) {
            record.succeeded.incrementAndGet();
            record.lastSuccess = now;
        } else {
            String what = Urls.redactedIn(failure);
            record.failed.incrementAndGet();
            failed(record, now, what);
            record.unreachable = true;
            problem(new Problem(now, origin == null ? host : origin, subjectOf(what), what, 1));
        }
    }

    /**
     * A release or archive of {@code provider} from {@code origin} was refused because {@code check} failed
     * ({@code detail} says how): counted as a failure of the origin, though its requests succeeded.
     */
    public void verificationFailed(String origin, String provider, String check, String detail) {
        Tally record = record(origin);
        Instant now = clock.instant();
        String what =
                "refused: the " + check + " check failed" + (detail == null ? "" : ": " + Urls.redactedIn(detail));
        record.refused.incrementAndGet();
        failed(record, now, what);
        record.unreachable = false;
        problem(new Problem(now, origin, provider, what, 1));
    }

    private Tally record(String origin) {
        return records.computeIfAbsent(origins.value(origin), h -> new Tally());
    }

    private static void failed(Tally record, Instant now, String what) {
        record.lastFailure = now;
        record.lastFailureMessage = what;
    }

    /** The provider or module a failure message names, with its version and platform, or null. */
    static String subjectOf(String what) {
        java.util.regex.Matcher subject = SUBJECT.matcher(what == null ? "" : what);
        return subject.find() ? subject.group(1) : null;
    }

    /** Keeps {@code problem} as the newest; the same problem seen before is one problem with a higher count. */
    private void problem(Problem problem) {
        synchronized (problems) {
            Problem counted = problem;
            for (java.util.Iterator<Problem> seen = problems.iterator(); seen.hasNext(); ) {
                Problem earlier = seen.next();
                if (earlier.sameAs(problem)) {
                    seen.remove();
                    counted = new Problem(
                            problem.time(), problem.origin(), problem.subject(), problem.what(), earlier.count() + 1);
                    break;
                }
            }
            if (problems.size() == RECENT_PROBLEMS) {
                problems.removeFirst();
            }
            problems.addLast(counted);
        }
    }

    /** The last {@value #RECENT_PROBLEMS} problems, newest first. */
    public List<Problem> recentProblems() {
        synchronized (problems) {
            List<Problem> newestFirst = new ArrayList<>(problems);
            java.util.Collections.reverse(newestFirst);
            return newestFirst;
        }
    }

    /** Every origin a request was made for since start-up, by name. */
    public List<Snapshot> snapshot() {
        return records.entrySet().stream()
                .map(e -> new Snapshot(
                        e.getKey(),
                        e.getValue().contacted.stream().sorted().toList(),
                        e.getValue().succeeded.get(),
                        e.getValue().failed.get(),
                        e.getValue().refused.get(),
                        e.getValue().lastSuccess,
                        e.getValue().lastFailure,
                        e.getValue().lastFailureMessage,
                        e.getValue().unreachable))
                .sorted(Comparator.comparing(Snapshot::origin))
                .toList();
    }
}
