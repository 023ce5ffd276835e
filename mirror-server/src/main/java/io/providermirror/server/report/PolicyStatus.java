package io.providermirror.server.report;

import io.providermirror.server.config.AllowEarly;
import io.providermirror.server.config.ModuleRule;
import io.providermirror.server.config.PolicyConfig;
import io.providermirror.server.config.ProviderRule;
import io.providermirror.server.config.ReleaseAgeRule;
import io.providermirror.server.core.PolicyHolds;
import io.providermirror.server.core.ReleaseAge;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The policy's rules as the status page lists them, each with what it holds back now as far as this instance has
 * seen ({@link PolicyHolds}): deny rules with their reasons, the minimum release age and its overrides, and the
 * {@code allowEarly} exceptions with their expiry (for which {@code held} is what they let in). A value, computed
 * from what is in memory.
 *
 * @param dryRun whether the release-age quarantine only counts and logs ({@code policy.releaseAgeMode: dryRun})
 */
public record PolicyStatus(boolean dryRun, List<Rule> rules) {

    /** No rule. */
    public static final PolicyStatus NONE = new PolicyStatus(false, List.of());

    /**
     * One rule.
     *
     * @param id     where it is configured ({@code policy.deny[0]})
     * @param kind   {@code deny}, {@code release age} or {@code allow early}
     * @param what   what it matches ({@code provider "example.test/acme/*" versions "= 1.5.0"})
     * @param detail its reason, minimum age, or reason and expiry
     * @param held   what it holds back now (lets in, for an exception)
     */
    public record Rule(String id, String kind, String what, String detail, Held held) {}

    /** How many versions a rule holds back now, and some of them. */
    public record Held(int count, List<HeldVersion> versions) {}

    /** A version held: {@code hostname/namespace/type version} (or a module's), and when it becomes available. */
    public record HeldVersion(String subject, java.util.Optional<java.time.Instant> until) {}

    public PolicyStatus {
        rules = List.copyOf(rules);
    }

    /** The rules of {@code config}, each with what {@code held} (by rule id) says it holds back. */
    public static PolicyStatus of(PolicyConfig config, Map<String, PolicyHolds.Held> held) {
        List<Rule> rules = new ArrayList<>();
        PolicyHolds.Held none = new PolicyHolds.Held(0, List.of());
        for (int i = 0; i < config.deny().size(); i++) {
            ProviderRule rule = config.deny().get(i);
            String id = "policy.deny[" + i + "]";
            rules.add(new Rule(
                    id,
                    "deny",
                    "provider \"" + rule.provider() + "\"" + versions(rule.versions()),
                    reason(rule.reason()),
                    shown(held.getOrDefault(id, none))));
        }
        for (int i = 0; i < config.modules().deny().size(); i++) {
            ModuleRule rule = config.modules().deny().get(i);
            String id = "policy.modules.deny[" + i + "]";
            rules.add(new Rule(
                    id,
                    "deny",
                    "module \"" + rule.module() + "\"" + versions(rule.versions()),
                    reason(rule.reason()),
                    shown(held.getOrDefault(id, none))));
        }
        if (!config.minimumReleaseAge().isZero()) {
            rules.add(new Rule(
                    "policy.minimumReleaseAge",
                    "release age",
                    "every provider and module no override matches",
                    "at least " + ReleaseAge.words(config.minimumReleaseAge()) + " old; of unknown age: "
                            + config.unknownReleaseAge(),
                    shown(held.getOrDefault("policy.minimumReleaseAge", none))));
        }
        for (int i = 0; i < config.releaseAgeOverrides().size(); i++) {
            ReleaseAgeRule rule = config.releaseAgeOverrides().get(i);
            String id = "policy.releaseAgeOverrides[" + i + "]";
            rules.add(new Rule(
                    id,
                    "release age",
                    (rule.provider() != null ? "provider" : "module") + " \"" + rule.pattern() + "\"",
                    "at least " + ReleaseAge.words(rule.minimumAge()) + " old",
                    shown(held.getOrDefault(id, none))));
        }
        for (int i = 0; i < config.allowEarly().size(); i++) {
            AllowEarly early = config.allowEarly().get(i);
            String id = "policy.allowEarly[" + i + "]";
            rules.add(new Rule(
                    id,
                    "allow early",
                    (early.provider() != null ? "provider" : "module") + " \"" + early.address() + "\" "
                            + early.version(),
                    reason(early.reason()) + "; expires " + early.expires() + " (at " + early.expiresAt() + ")",
                    shown(held.getOrDefault(id, none))));
        }
        return new PolicyStatus("dryRun".equals(config.releaseAgeMode()), rules);
    }

    private static Held shown(PolicyHolds.Held held) {
        return new Held(
                held.count(),
                held.versions().stream()
                        .map(version -> new HeldVersion(version.subject(), version.until()))
                        .toList());
    }

    private static String versions(String versions) {
        return versions == null || versions.isBlank() ? " (every version)" : " versions \"" + versions + "\"";
    }

    private static String reason(String reason) {
        return reason == null || reason.isBlank() ? "no reason given" : "reason: " + reason;
    }
}
