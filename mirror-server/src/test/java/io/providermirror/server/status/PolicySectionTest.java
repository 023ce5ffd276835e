package io.providermirror.server.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.config.AllowEarly;
import io.providermirror.server.config.ModulePolicyConfig;
import io.providermirror.server.config.ModuleRule;
import io.providermirror.server.config.PolicyConfig;
import io.providermirror.server.config.ProviderRule;
import io.providermirror.server.config.ReleaseAgeRule;
import io.providermirror.server.core.PolicyHolds;
import io.providermirror.server.core.ProviderPolicy;
import io.providermirror.server.core.ReleaseAge;
import io.providermirror.server.face.modules.ModulePolicy;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.report.PolicyStatus;
import io.providermirror.server.tlog.DecisionLog;
import io.providermirror.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The status page lists every rule of the policy with what it holds back now: deny rules with their reasons, the
 * release-age rules and overrides, the allowEarly exceptions with their expiry, each fed by the decisions the
 * policy and the quarantine make.
 */
final class PolicySectionTest {

    private static final Instant NOW = Instant.parse("2026-11-27T12:00:00Z");

    private final SettableClock clock = new SettableClock(NOW);

    private static ProviderVersion v(String text) {
        return ProviderVersion.parse(text).orElseThrow();
    }

    @Test
    void everyRuleIsListedWithWhatItHoldsBackNow() {
        PolicyConfig config = new PolicyConfig(
                List.of(),
                List.of(new ProviderRule("example.test/acme/*", "= 1.5.0", "breaks IAM")),
                List.of(),
                new ModulePolicyConfig(List.of(), List.of(new ModuleRule("example.test/corp/*/*", null, "unvetted"))),
                Duration.ofDays(7),
                List.of(new ReleaseAgeRule("example.test/acme/fast*", null, Duration.ofDays(1))),
                "allow",
                "enforce",
                List.of(new AllowEarly(
                        "example.test/acme/urgent", null, "2.0.0", "fixes CVE-2026-0001", "2999-01-31")));
        PolicyHolds holds = new PolicyHolds(clock);
        ProviderPolicy providers = new ProviderPolicy(config, holds);
        ReleaseAge ages = new ReleaseAge(
                config, clock, new MirrorMetrics(new SimpleMeterRegistry(), clock), DecisionLog.NONE, holds);
        ModulePolicy modules = new ModulePolicy(config.modules(), ages, holds);
        ReleaseAge.Evidence seenNow = new ReleaseAge.Evidence(Optional.empty(), Optional.of(NOW), Optional.empty());

        ProviderAddress banned = ProviderAddress.parse("example.test/acme/banned");
        for (int i = 0; i < 3; i++) {
            assertThat(providers.allows(banned, v("1.5.0"))).isFalse(); // judged again: counted once
        }
        assertThat(providers.allows(banned, v("1.6.0"))).isTrue();
        assertThat(modules.allows(new ModuleAddress("example.test", "corp", "net", "aws"), v("1.0.0")))
                .isFalse();
        assertThat(ages.offered("example.test/acme/tool", v("2.0.0"), seenNow)).isFalse();
        assertThat(ages.offered("example.test/acme/fastlane", v("3.0.0"), seenNow))
                .isFalse();
        assertThat(ages.offered("example.test/acme/urgent", v("2.0.0"), seenNow))
                .isTrue();

        StringBuilder html = new StringBuilder();
        PolicySection.render(html, PolicyStatus.of(config, holds.now()));
        String page = html.toString();
        assertThat(rowOf(page, "policy.deny[0]"))
                .contains("provider &quot;example.test/acme/*&quot; versions &quot;= 1.5.0&quot;")
                .contains("reason: breaks IAM")
                .contains("1 version<ul><li><code>example.test/acme/banned 1.5.0</code></li></ul>");
        assertThat(rowOf(page, "policy.modules.deny[0]"))
                .contains("reason: unvetted")
                .contains("<li><code>example.test/corp/net/aws</code></li>");
        assertThat(rowOf(page, "policy.minimumReleaseAge"))
                .contains("at least 7d old")
                .contains("<code>example.test/acme/tool 2.0.0</code> (available on 2026-12-04 12:00 UTC)");
        assertThat(rowOf(page, "policy.releaseAgeOverrides[0]"))
                .contains("at least 1d old")
                .contains("<code>example.test/acme/fastlane 3.0.0</code> (available on 2026-11-28 12:00 UTC)");
        assertThat(rowOf(page, "policy.allowEarly[0]"))
                .contains("fixes CVE-2026-0001; expires 2999-01-31")
                .contains("1 version let in<ul><li><code>example.test/acme/urgent 2.0.0</code>");

        clock.advance(Duration.ofDays(1));
        html.setLength(0);
        PolicySection.render(html, PolicyStatus.of(config, holds.now()));
        assertThat(rowOf(html.toString(), "policy.releaseAgeOverrides[0]"))
                .as("aged in: no longer held")
                .contains("0 versions")
                .doesNotContain("fastlane 3.0.0");
        assertThat(rowOf(html.toString(), "policy.minimumReleaseAge")).contains("tool 2.0.0");
    }

    @Test
    void aRuleNamesAFewOfItsVersionsAndCountsTheRest() {
        PolicyHolds holds = new PolicyHolds(clock);
        for (int i = 0; i < PolicyHolds.NAMED + 5; i++) {
            holds.held("policy.deny[0]", "example.test/acme/banned 1.0." + i, Optional.empty());
        }
        PolicyHolds.Held held = holds.now().get("policy.deny[0]");
        assertThat(held.count()).isEqualTo(PolicyHolds.NAMED + 5);
        assertThat(held.versions()).hasSize(PolicyHolds.NAMED);
        for (int i = 0; i < PolicyHolds.MAX_VERSIONS + 100; i++) {
            holds.held("policy.deny[1]", "example.test/acme/many 1.0." + i, Optional.empty());
        }
        assertThat(holds.now().values().stream()
                        .mapToInt(PolicyHolds.Held::count)
                        .sum())
                .isLessThanOrEqualTo(PolicyHolds.MAX_VERSIONS);
    }

    private static String rowOf(String page, String rule) {
        int start = page.indexOf("<tr><td><code>" + rule + "</code>");
        assertThat(start).as(rule + " is listed in " + page).isNotNegative();
        return page.substring(start, page.indexOf("</tr>", start));
    }
}
