package io.providermirror.server.core;

import io.providermirror.model.ProviderVersion;
import io.providermirror.server.config.AllowEarly;
import io.providermirror.server.config.PolicyConfig;
import io.providermirror.server.config.ReleaseAgeRule;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.tlog.Decision;
import io.providermirror.server.tlog.DecisionLog;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The release-age quarantine ({@code policy.minimumReleaseAge}): a version younger than the minimum that applies to
 * it is held back, left out of version lists and refused when asked for directly, until it ages in; what
 * {@code policy.allowEarly} names comes in before. In dry-run mode it only counts and logs what it would hold.
 * Addresses are written {@code hostname/namespace/type} (providers) or {@code hostname/namespace/name/system}
 * (modules), as rules are.
 */
public final class ReleaseAge {

    private static final Logger LOG = LoggerFactory.getLogger(ReleaseAge.class);

    /**
     * What the mirror knows of when a version was released: {@code published}, the origin's word (a module's
     * {@code published_at}); {@code firstSeen}, when the mirror saw it appear in a list that had been without it;
     * {@code listedSince}, when the mirror first saw the list at all (a version in that list is at least that old).
     * The latest of {@code published} and {@code firstSeen} is the release time, so an origin's date cannot
     * shorten the wait of a version the mirror watched appear.
     */
    public record Evidence(Optional<Instant> published, Optional<Instant> firstSeen, Optional<Instant> listedSince) {
        public static final Evidence NONE = new Evidence(Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** A version held back: the rule's words and when it becomes available (none when its age is unknown). */
    public record Hold(String rule, Optional<Instant> availableAt, String evidence) {}

    /** No quarantine: nothing is ever held. */
    public static final ReleaseAge NONE =
            new ReleaseAge(new PolicyConfig(null, null, null, null), Clock.systemUTC(), null, DecisionLog.NONE);

    /** A minimum age and where it applies; {@code id} names it as the status page does. */
    private record AgeRule(String id, AddressPattern pattern, Duration minimumAge, String text) {}

    private final Duration minimum;
    private final List<AgeRule> overrides;
    private final boolean holdUnknown;
    private final boolean dryRun;
    private final List<AllowEarly> allowEarly;
    private final Clock clock;
    private final MirrorMetrics metrics;
    private final DecisionLog decisions;
    private final DryRunLog dryRunLog;
    private final PolicyHolds holds;
    /** Whether any version could be held, decided once: asked on every request's path. */
    private final boolean active;

    public ReleaseAge(PolicyConfig config, Clock clock, MirrorMetrics metrics, DecisionLog decisions) {
        this(config, clock, metrics, decisions, new PolicyHolds(clock));
    }

    /** @param holds where what it holds back (and what {@code allowEarly} lets in) is recorded for the status page */
    public ReleaseAge(
            PolicyConfig config, Clock clock, MirrorMetrics metrics, DecisionLog decisions, PolicyHolds holds) {
        this.minimum = config.minimumReleaseAge();
        List<AgeRule> rules = new ArrayList<>();
        for (int i = 0; i < config.releaseAgeOverrides().size(); i++) {
            ReleaseAgeRule rule = config.releaseAgeOverrides().get(i);
            rules.add(new AgeRule(
                    "policy.releaseAgeOverrides[" + i + "]",
                    AddressPattern.of(rule.pattern()),
                    rule.minimumAge(),
                    "policy.releaseAgeOverrides[" + i + "] (" + (rule.provider() != null ? "provider" : "module")
                            + " \"" + rule.pattern() + "\", minimumAge " + words(rule.minimumAge()) + ")"));
        }
        this.overrides = List.copyOf(rules);
        this.holdUnknown = "hold".equals(config.unknownReleaseAge());
        this.dryRun = "dryRun".equals(config.releaseAgeMode());
        this.allowEarly = config.allowEarly();
        this.clock = clock;
        this.metrics = metrics;
        this.decisions = decisions;
        this.dryRunLog = new DryRunLog(clock, line -> LOG.info("{}", line));
        this.holds = holds;
        this.active = !minimum.isZero()
                || overrides.stream().anyMatch(o -> !o.minimumAge().isZero());
    }

    /** Whether any version could be held: a minimum age above zero, here or in an override. */
    public boolean active() {
        return active;
    }

    /** Whether this quarantine only counts and logs ({@code policy.releaseAgeMode: dryRun}). */
    public boolean dryRun() {
        return dryRun;
    }

    /**
     * Whether {@code version} of {@code address} is left out of a version list now (counted; in dry-run mode only
     * counted).
     */
    public boolean offered(String address, ProviderVersion version, Evidence evidence) {
        Optional<Hold> hold = hold(address, version, evidence);
        if (hold.isEmpty()) {
            return true;
        }
        metrics.releaseAgeHeld(dryRun ? "dryRun" : "enforce", "listing");
        if (dryRun) {
            String subject = address + " " + version.canonical();
            dryRunLog.wouldHold(
                    subject,
                    "release-age dry run: would leave " + subject + " out of version lists, held back by "
                            + hold.get().rule()
                            + hold.get().availableAt().map(at -> " until " + at).orElse(""));
        }
        return dryRun;
    }

    /**
     * Why a direct request for {@code version} of {@code address} is refused now, if it is: the rule, the date it
     * becomes available and what to do when a lock file pins it. Counted and recorded in the decision log; in
     * dry-run mode counted and logged, never refused.
     */
    public Optional<String> refusal(String address, ProviderVersion version, Evidence evidence) {
        Optional<Hold> hold = hold(address, version, evidence);
        if (hold.isEmpty()) {
            return Optional.empty();
        }
        String subject = address + " " + version.canonical();
        String message = subject + " is held back by " + hold.get().rule() + " ("
                + hold.get().evidence() + "): "
                + hold.get()
                        .availableAt()
                        .map(at -> "it becomes available on " + at)
                        .orElse("its age cannot be established (policy.unknownReleaseAge: hold)")
                + ". If a lock file pins it, wait until then, pin an older version, or let it in early with "
                + "policy.allowEarly (this version, a reason and an expiry)";
        metrics.releaseAgeHeld(dryRun ? "dryRun" : "enforce", "request");
        if (dryRun) {
            dryRunLog.wouldHold(subject, "release-age dry run: would refuse " + message);
            return Optional.empty();
        }
        decisions.record(Decision.refused(subject, message));
        return Optional.of(message);
    }

    /** The hold on {@code version} now, if any, whatever the mode. */
    public Optional<Hold> hold(String address, ProviderVersion version, Evidence evidence) {
        AgeRule rule = rule(address);
        Optional<Hold> hold = judge(rule, address, version, evidence);
        hold.ifPresent(held -> holds.held(rule.id(), address + " " + version.canonical(), held.availableAt()));
        return hold;
    }

    private Optional<Hold> judge(AgeRule rule, String address, ProviderVersion version, Evidence evidence) {
        if (rule.minimumAge().isZero()) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        OptionalInt early = allowedEarly(address, version, now);
        if (early.isPresent()) {
            holds.held(
                    "policy.allowEarly[" + early.getAsInt() + "]",
                    address + " " + version.canonical(),
                    Optional.of(allowEarly.get(early.getAsInt()).expiresAt()));
            return Optional.empty();
        }
        Optional<Instant> released = latest(evidence.published(), evidence.firstSeen());
        if (released.isPresent()) {
            Instant availableAt = released.get().plus(rule.minimumAge());
            return now.isBefore(availableAt)
                    ? Optional.of(new Hold(rule.text(), Optional.of(availableAt), describe(evidence)))
                    : Optional.empty();
        }
        if (evidence.listedSince().isPresent()
                && !now.isBefore(evidence.listedSince().get().plus(rule.minimumAge()))) {
            return Optional.empty(); // listed when the mirror first looked, and that was long enough ago
        }
        if (!holdUnknown) {
            return Optional.empty();
        }
        return Optional.of(new Hold(
                rule.text(),
                evidence.listedSince().map(since -> since.plus(rule.minimumAge())),
                evidence.listedSince()
                        .map(since -> "no release date known; listed when this mirror first looked, at " + since)
                        .orElse("no release date known")));
    }

    private AgeRule rule(String address) {
        for (AgeRule override : overrides) {
            if (override.pattern().matches(address)) {
                return override;
            }
        }
        return new AgeRule(
                "policy.minimumReleaseAge", null, minimum, "policy.minimumReleaseAge (" + words(minimum) + ")");
    }

    /** The index of the {@code allowEarly} exception that lets {@code version} in now, if one does. */
    private OptionalInt allowedEarly(String address, ProviderVersion version, Instant now) {
        for (int i = 0; i < allowEarly.size(); i++) {
            AllowEarly early = allowEarly.get(i);
            if (early.address().equalsIgnoreCase(address)
                    && ProviderVersion.parse(early.version()).orElseThrow().equals(version)
                    && now.isBefore(early.expiresAt())) {
                return OptionalInt.of(i);
            }
        }
        return OptionalInt.empty();
    }

    private static Optional<Instant> latest(Optional<Instant> a, Optional<Instant> b) {
        if (a.isEmpty()) {
            return b;
        }
        if (b.isEmpty()) {
            return a;
        }
        return Optional.of(a.get().isAfter(b.get()) ? a.get() : b.get());
    }

    private static String describe(Evidence evidence) {
        List<String> parts = new ArrayList<>();
        evidence.published().ifPresent(at -> parts.add("dated by its origin (published or signed) " + at));
        evidence.firstSeen().ifPresent(at -> parts.add("first seen by this mirror " + at));
        return String.join(", ", parts);
    }

    /** A duration as configured: {@code 7d}, {@code 12h}, {@code 30m}, else ISO-8601. */
    public static String words(Duration duration) {
        if (duration.isZero()) {
            return "0s";
        }
        if (duration.toDaysPart() > 0 && duration.equals(Duration.ofDays(duration.toDays()))) {
            return duration.toDays() + "d";
        }
        if (duration.equals(Duration.ofHours(duration.toHours()))) {
            return duration.toHours() + "h";
        }
        if (duration.equals(Duration.ofMinutes(duration.toMinutes()))) {
            return duration.toMinutes() + "m";
        }
        return duration.toString().toLowerCase(Locale.ROOT);
    }
}
