package io.providermirror.server.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.config.AllowEarly;
import io.providermirror.server.config.PolicyConfig;
import io.providermirror.server.config.ReleaseAgeRule;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.tlog.Decision;
import io.providermirror.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which evidence wins, what an unknown age does, overrides and exceptions, on a clock the test sets. */
final class ReleaseAgeTest {

    private static final String AWS = "registry.terraform.io/hashicorp/aws";
    private static final ProviderVersion V5 = ProviderVersion.parse("5.0.0").orElseThrow();
    private static final Instant NOW = Instant.parse("2026-11-27T12:00:00Z");

    private final SettableClock clock = new SettableClock(NOW);
    private final List<Decision> decisions = new ArrayList<>();

    private ReleaseAge age(String unknown, List<ReleaseAgeRule> overrides, List<AllowEarly> early) {
        return new ReleaseAge(
                new PolicyConfig(null, null, null, null, Duration.ofDays(7), overrides, unknown, null, early),
                clock,
                new MirrorMetrics(new SimpleMeterRegistry(), clock),
                decisions::add);
    }

    private static ReleaseAge.Evidence evidence(Instant published, Instant firstSeen, Instant listedSince) {
        return new ReleaseAge.Evidence(
                Optional.ofNullable(published), Optional.ofNullable(firstSeen), Optional.ofNullable(listedSince));
    }

    @Test
    void theLatestOfTheOriginsDateAndTheMirrorsFirstSightingWins() {
        ReleaseAge age = age("allow", List.of(), List.of());
        Instant backdated = NOW.minus(Duration.ofDays(30));
        Instant seen = NOW.minus(Duration.ofDays(1));
        assertThat(age.hold(AWS, V5, evidence(backdated, seen, null))
                        .orElseThrow()
                        .availableAt())
                .contains(seen.plus(Duration.ofDays(7)));
        assertThat(age.hold(AWS, V5, evidence(seen, backdated, null))
                        .orElseThrow()
                        .availableAt())
                .contains(seen.plus(Duration.ofDays(7)));
        assertThat(age.hold(AWS, V5, evidence(backdated, null, null))).isEmpty();
    }

    @Test
    void anUnknownAgeIsAllowedOrHeldAsConfiguredAndAgesInWithTheFirstList() {
        Instant listed = NOW.minus(Duration.ofDays(2));
        assertThat(age("allow", List.of(), List.of()).hold(AWS, V5, evidence(null, null, listed)))
                .isEmpty();
        ReleaseAge hold = age("hold", List.of(), List.of());
        assertThat(hold.hold(AWS, V5, evidence(null, null, listed))
                        .orElseThrow()
                        .availableAt())
                .contains(listed.plus(Duration.ofDays(7)));
        assertThat(hold.hold(AWS, V5, ReleaseAge.Evidence.NONE).orElseThrow().availableAt())
                .isEmpty();
        clock.advance(Duration.ofDays(5));
        assertThat(hold.hold(AWS, V5, evidence(null, null, listed)))
                .as("in the first list a week ago: at least a week old")
                .isEmpty();
    }

    @Test
    void anOverrideMatchesByPatternAndAnExceptionEndsWhenItExpires() {
        ReleaseAge age = age(
                "allow",
                List.of(new ReleaseAgeRule("hashicorp/*", null, Duration.ofDays(1))),
                List.of(new AllowEarly("acme/tool", null, "5.0.0", "CVE fix", "2026-11-28")));
        Instant seen = NOW.minus(Duration.ofHours(12));
        assertThat(age.hold(AWS, V5, evidence(null, seen, null)).orElseThrow().rule())
                .isEqualTo("policy.releaseAgeOverrides[0] (provider \"registry.terraform.io/hashicorp/*\", "
                        + "minimumAge 1d)");
        String tool = "registry.terraform.io/acme/tool";
        assertThat(age.hold(tool, V5, evidence(null, seen, null))).isEmpty();
        assertThat(age.hold(tool, ProviderVersion.parse("5.0.1").orElseThrow(), evidence(null, seen, null)))
                .isPresent();
        clock.advance(Duration.ofDays(2)); // past the end of 2026-11-28 UTC
        assertThat(age.hold(tool, V5, evidence(null, NOW.plus(Duration.ofDays(1)), null)))
                .isPresent();
    }

    @Test
    void aRefusalIsRecordedInTheDecisionLogNamingRuleDateAndWhatToDo() {
        Instant seen = NOW.minus(Duration.ofDays(1));
        String refusal = age("allow", List.of(), List.of())
                .refusal(AWS, V5, evidence(null, seen, null))
                .orElseThrow();
        assertThat(refusal)
                .contains("policy.minimumReleaseAge (7d)")
                .contains("available on " + seen.plus(Duration.ofDays(7)))
                .contains("policy.allowEarly");
        assertThat(decisions).hasSize(1);
        assertThat(decisions.get(0).kind()).isEqualTo("policy.refused");
    }

    @Test
    void malformedSettingsNameTheKey() {
        assertThatThrownBy(() -> new PolicyConfig(null, null, null, null, null, null, "maybe", null, null))
                .hasMessageContaining("unknownReleaseAge");
        assertThatThrownBy(() -> new PolicyConfig(null, null, null, null, null, null, null, "audit", null))
                .hasMessageContaining("releaseAgeMode");
        assertThatThrownBy(() -> new AllowEarly("acme/*", null, "1.0.0", "x", "2026-12-01"))
                .hasMessageContaining("exact");
        assertThatThrownBy(() -> new AllowEarly("acme/tool", null, "1.0.0", null, "2026-12-01"))
                .hasMessageContaining("reason");
        assertThatThrownBy(() -> new AllowEarly("acme/tool", null, "1.0.0", "x", "soon"))
                .hasMessageContaining("expires");
    }
}
