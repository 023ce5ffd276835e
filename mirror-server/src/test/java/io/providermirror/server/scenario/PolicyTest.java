package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.ConfigLoader;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Allow and deny rules and the platform filter decide what comes in; a refusal names its rule. */
final class PolicyTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] PLATFORMS = {"linux_amd64", "darwin_arm64", "windows_amd64"};

    @RegisterExtension
    static final MirrorExtension fixture = MirrorExtension.with((builder, directory) -> builder.set(
                    "policy.allow", List.of(Map.of("provider", "example.test/acme/*", "versions", ">= 2.0")))
            .set(
                    "policy.deny",
                    List.of(
                            Map.of("provider", "example.test/acme/banned"),
                            Map.of("provider", "*/acme/t??l", "versions", "= 2.1.0")))
            .set("policy.platforms", List.of("linux_amd64", "darwin_arm64")));

    @BeforeAll
    static void start() {
        for (String version : new String[] {"1.0.0", "2.0.0", "2.1.0", "3.0.0"}) {
            fixture.origin().publish("acme", "tool", version, PLATFORMS);
        }
        fixture.origin().publish("acme", "banned", "2.0.0", "linux_amd64");
        fixture.origin().publish("other", "thing", "2.0.0", "linux_amd64");
    }

    private static String refusal(String path) throws Exception {
        HttpResponse<byte[]> response = fixture.mirror().get(path);
        assertThat(response.statusCode()).as(path).isEqualTo(404);
        return JSON.readTree(response.body()).get("errors").get(0).asText();
    }

    @Test
    void versionListsShowOnlyWhatThePolicyLetsIn() throws Exception {
        JsonNode index = JSON.readTree(fixture.mirror()
                .get(fixture.mirror().providerPath("acme", "tool") + "index.json")
                .body());
        List<String> versions = new ArrayList<>();
        index.get("versions").fieldNames().forEachRemaining(versions::add);
        assertThat(versions).containsExactlyInAnyOrder("2.0.0", "3.0.0");
    }

    @Test
    void refusedVersionsNameTheRule() throws Exception {
        assertThat(refusal(fixture.mirror().providerPath("acme", "tool") + "1.0.0.json"))
                .startsWith(
                        "refused by this mirror's policy: example.test/acme/tool 1.0.0 matches none of the policy.allow rules")
                .contains("policy.allow[0] (provider \"example.test/acme/*\", versions \">= 2.0\")");
        assertThat(refusal(fixture.mirror().providerPath("acme", "tool") + "2.1.0.json"))
                .contains(
                        "example.test/acme/tool 2.1.0 is denied by policy.deny[1] (provider \"*/acme/t??l\", versions \"= 2.1.0\")");
        assertThat(refusal(fixture.mirror().providerPath("acme", "tool")
                        + "terraform-provider-tool_2.1.0_linux_amd64.zip"))
                .contains("policy.deny[1]");
    }

    @Test
    void refusedProvidersNameTheRuleAndTheOriginIsNeverAsked() throws Exception {
        assertThat(refusal(fixture.mirror().providerPath("acme", "banned") + "index.json"))
                .contains(
                        "example.test/acme/banned is denied by policy.deny[0] (provider \"example.test/acme/banned\")");
        assertThat(refusal(fixture.mirror().providerPath("other", "thing") + "index.json"))
                .contains("example.test/other/thing matches none of the 1 policy.allow rules");
        assertThat(fixture.origin().requestsMatching("/v1/providers/acme/banned/.*"))
                .isZero();
        assertThat(fixture.origin().requestsMatching("/v1/providers/other/thing/.*"))
                .isZero();
    }

    @Test
    void onlyTheConfiguredPlatformsAreServed() throws Exception {
        JsonNode document = JSON.readTree(fixture.mirror()
                .get(fixture.mirror().providerPath("acme", "tool") + "3.0.0.json")
                .body());
        List<String> platforms = new ArrayList<>();
        document.get("archives").fieldNames().forEachRemaining(platforms::add);
        assertThat(platforms).containsExactlyInAnyOrder("linux_amd64", "darwin_arm64");
        assertThat(refusal(fixture.mirror().providerPath("acme", "tool")
                        + "terraform-provider-tool_3.0.0_windows_amd64.zip"))
                .contains("platform windows_amd64 is not among policy.platforms [darwin_arm64, linux_amd64]");
        assertThat(fixture.mirror()
                        .get(fixture.mirror().providerPath("acme", "tool")
                                + "terraform-provider-tool_3.0.0_linux_amd64.zip")
                        .statusCode())
                .isEqualTo(200);
        assertThat(fixture.origin().requestsMatching("/files/acme/tool/3.0.0/.*windows_amd64.zip"))
                .isZero();
    }

    @Test
    void malformedRulesStopStartUpNamingTheKey() throws ConfigException {
        Assertions.assertThatThrownBy(
                        () -> new ConfigLoader(Map.of()).loadText("policy: {deny: [{provider: \"acme\"}]}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("policy.deny")
                .hasMessageContaining("expected: hostname/namespace/type");
        // The CLI's short form namespace/type is registry.terraform.io's, as in provider addresses.
        Assertions.assertThat(new ConfigLoader(Map.of())
                        .loadText("policy: {deny: [{provider: \"acme/*\"}]}")
                        .policy()
                        .deny()
                        .get(0)
                        .provider())
                .isEqualTo("registry.terraform.io/acme/*");
        Assertions.assertThatThrownBy(() -> new ConfigLoader(Map.of())
                        .loadText("policy: {allow: [{provider: \"*/*/*\", versions: \"newest\"}]}"))
                .hasMessageContaining("'newest' in version constraint");
        Assertions.assertThatThrownBy(() -> new ConfigLoader(Map.of()).loadText("policy: {platforms: [linux]}"))
                .hasMessageContaining("'linux' (expected: os_arch");
    }
}
