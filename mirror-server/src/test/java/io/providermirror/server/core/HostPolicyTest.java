package io.providermirror.server.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.server.config.ModulePolicyConfig;
import io.providermirror.server.config.ModuleRule;
import io.providermirror.server.config.PolicyConfig;
import io.providermirror.server.config.ProviderRule;
import io.providermirror.server.face.modules.ModulePolicy;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Whether the policy refuses everything of a registry host (what a host's discovery document on the mirror leaves
 * out): only a rule that refuses all of the host, or allow rules that name other hosts only, do; a rule for part
 * of a host, or for some versions, does not.
 */
final class HostPolicyTest {

    private static ProviderPolicy providers(List<ProviderRule> allow, List<ProviderRule> deny) {
        return new ProviderPolicy(new PolicyConfig(allow, deny, null, null));
    }

    private static ModulePolicy modules(List<ModuleRule> allow, List<ModuleRule> deny) {
        return new ModulePolicy(new ModulePolicyConfig(allow, deny));
    }

    @Test
    void aDenyRuleForAllOfAHostRefusesTheHostAndNamesTheRule() {
        ProviderPolicy policy = providers(null, List.of(ProviderRule.of("closed.test/*/*")));

        assertThat(policy.refusal("closed.test"))
                .hasValueSatisfying(
                        reason -> assertThat(reason).contains("closed.test").contains("policy.deny[0]"));
        assertThat(policy.refusal("open.test")).isEmpty();
    }

    @Test
    void aDenyRuleForPartOfAHostOrForSomeVersionsLeavesTheHostOpen() {
        ProviderPolicy policy = providers(
                null,
                List.of(
                        ProviderRule.of("closed.test/acme/*"),
                        ProviderRule.of("closed.test/*/tool"),
                        new ProviderRule("closed.test/*/*", "< 2.0.0")));

        assertThat(policy.refusal("closed.test")).isEmpty();
    }

    @Test
    void aHostGlobRefusesEveryHostItMatches() {
        ProviderPolicy policy = providers(null, List.of(ProviderRule.of("*.closed.test/*/*")));

        assertThat(policy.refusal("a.closed.test")).isPresent();
        assertThat(policy.refusal("closed.test")).isEmpty();
    }

    @Test
    void allowRulesRefuseTheHostsNoneOfThemNames() {
        ProviderPolicy policy = providers(List.of(ProviderRule.of("corp.test/acme/*")), null);

        assertThat(policy.refusal("corp.test")).isEmpty();
        assertThat(policy.refusal("other.test"))
                .hasValueSatisfying(
                        reason -> assertThat(reason).contains("other.test").contains("policy.allow"));
    }

    @Test
    void moduleRulesDecideForModulesAlike() {
        ModulePolicy policy = modules(
                null,
                List.of(
                        ModuleRule.of("closed.test/*/*/*"),
                        ModuleRule.of("half.test/acme/*/*"),
                        new ModuleRule("old.test/*/*/*", "< 2.0.0")));

        assertThat(policy.refusal("closed.test"))
                .hasValueSatisfying(
                        reason -> assertThat(reason).contains("closed.test").contains("policy.modules.deny[0]"));
        assertThat(policy.refusal("half.test")).isEmpty();
        assertThat(policy.refusal("old.test")).isEmpty();
        assertThat(modules(List.of(ModuleRule.of("corp.test/*/*/*")), null).refusal("other.test"))
                .hasValueSatisfying(reason -> assertThat(reason).contains("policy.modules.allow"));
        assertThat(modules(List.of(ModuleRule.of("corp.test/*/*/*")), null).refusal("corp.test"))
                .isEmpty();
    }
}
