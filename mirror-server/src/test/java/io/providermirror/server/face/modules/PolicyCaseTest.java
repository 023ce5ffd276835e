package io.providermirror.server.face.modules;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.config.ModulePolicyConfig;
import io.providermirror.server.config.ModuleRule;
import io.providermirror.server.config.PolicyConfig;
import io.providermirror.server.config.ProviderRule;
import io.providermirror.server.core.ProviderPolicy;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Policy rules decide by the address as the CLI and registries compare it, ignoring case: no spelling of a denied
 * module or provider gets past its rule, and a rule written in capitals is not silently void.
 */
final class PolicyCaseTest {

    private static final ProviderVersion VERSION = new ProviderVersion("1.0.0");

    @Test
    void aModuleDenyRuleRefusesEverySpellingOfWhatItNamesHoweverTheRuleIsWritten() {
        ModulePolicy policy = new ModulePolicy(new ModulePolicyConfig(
                null, List.of(ModuleRule.of("evil.test/blocked/*/*"), ModuleRule.of("Evil.test/OTHER/Mod/x"))));

        for (String spelling :
                List.of("blocked/mod/x", "Blocked/mod/x", "BLOCKED/MOD/x", "other/mod/x", "Other/MOD/x")) {
            String[] parts = spelling.split("/");
            ModuleAddress address = new ModuleAddress("evil.test", parts[0], parts[1], parts[2]);
            assertThat(policy.refusal(address)).as(spelling).isPresent();
            assertThat(policy.allows(address, VERSION)).as(spelling).isFalse();
        }
        assertThat(policy.refusal(new ModuleAddress("evil.test", "Fine", "mod", "x")))
                .isEmpty();
    }

    @Test
    void aModuleAllowRuleLetsInEverySpellingOfWhatItNamesOnly() {
        ModulePolicy policy =
                new ModulePolicy(new ModulePolicyConfig(List.of(ModuleRule.of("corp.test/Corp/*/*")), null));
        assertThat(policy.refusal(new ModuleAddress("corp.test", "CORP", "net", "aws")))
                .isEmpty();
        assertThat(policy.refusal(new ModuleAddress("corp.test", "corpx", "net", "aws")))
                .isPresent();
    }

    @Test
    void aProviderRuleWrittenInCapitalsAppliesToTheLowercaseAddressTheCliSends() {
        ProviderPolicy policy =
                new ProviderPolicy(new PolicyConfig(null, List.of(ProviderRule.of("Example.test/ACME/*")), null, null));
        assertThat(policy.refusal(ProviderAddress.parse("example.test/acme/tool")))
                .hasValueSatisfying(reason -> assertThat(reason).contains("policy.deny[0]"));
        assertThat(policy.refusal(ProviderAddress.parse("example.test/other/tool")))
                .isEmpty();
    }
}
