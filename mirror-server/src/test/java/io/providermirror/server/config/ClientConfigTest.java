package io.providermirror.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code auth.clients}: names, tokens and scopes read and checked, errors naming the key, its path and why. */
final class ClientConfigTest {

    private static final String HASH = "sha256:" + "ab".repeat(32);
    private static final String OTHER_HASH = "sha256:" + "cd".repeat(32);

    private static MirrorConfig load(String yaml) throws ConfigException {
        return new ConfigLoader(Map.of()).loadText(yaml);
    }

    @Test
    void namedClientsAreReadWithTheirScopesBesidePlainTokens() throws ConfigException {
        MirrorConfig config = load("""
                auth:
                  tokens: [%s]
                  clients:
                    - name: ci-main
                      token: %s
                      hosts: [registry.terraform.io, "*.Example.com"]
                      namespaces: [hashicorp, acme-*]
                    - {name: team.web_2, token: %s}
                """.formatted(HASH, OTHER_HASH, "sha256:" + "ef".repeat(32)));

        assertThat(config.auth().enabled()).isTrue();
        assertThat(config.auth().tokens()).containsExactly(HASH);
        assertThat(config.auth().clients())
                .containsExactly(
                        new ClientConfig(
                                "ci-main",
                                OTHER_HASH,
                                List.of("registry.terraform.io", "*.example.com"),
                                List.of("hashicorp", "acme-*")),
                        new ClientConfig("team.web_2", "sha256:" + "ef".repeat(32), List.of(), List.of()));
        assertThat(ClientConfig.plain(HASH).name()).isEqualTo("token-abababab");
    }

    @Test
    void aClientAloneTurnsAccessControlOn() throws ConfigException {
        assertThat(load("auth: {clients: [{name: a, token: " + HASH + "}]}")
                        .auth()
                        .enabled())
                .isTrue();
        assertThat(load("auth: {}").auth().enabled()).isFalse();
    }

    @Test
    void badNamesTokensAndPatternsStopStartUpNamingTheKeyAndWhy() {
        assertThatThrownBy(() -> load("auth: {clients: [{name: a, token: " + HASH + "}, {name: CI Main, token: "
                        + OTHER_HASH + "}]}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("the configuration: configuration key 'auth.clients[1].name': 'CI Main' "
                        + "(expected: 1 to 64 lowercase letters, digits, '-', '_' or '.'");
        assertThatThrownBy(() -> load("auth: {clients: [{name: " + "a".repeat(65) + ", token: " + HASH + "}]}"))
                .hasMessageContaining("configuration key 'auth.clients[0].name'");
        assertThatThrownBy(() -> load("auth: {clients: [{name: anonymous, token: " + HASH + "}]}"))
                .hasMessageContaining("configuration key 'auth.clients[0].name': 'anonymous' is the mirror's own "
                        + "name for requests of no client");
        assertThatThrownBy(() -> load("auth: {clients: [{name: a, token: my-secret-token}]}"))
                .hasMessageContaining("configuration key 'auth.clients[0].token': 'my-secre...' (expected: "
                        + "sha256:<64 hex digits>")
                .hasMessageNotContaining("my-secret-token");
        assertThatThrownBy(() -> load("auth: {clients: [{token: " + HASH + "}]}"))
                .hasMessageContaining("configuration key 'auth.clients[0].name': ''");
        assertThatThrownBy(() ->
                        load("auth: {clients: [{name: a, token: " + HASH + ", hosts: [\"https://example.com\"]}]}"))
                .hasMessageContaining("configuration key 'auth.clients[0].hosts': 'https://example.com' (expected: "
                        + "a host name glob");
        assertThatThrownBy(() -> load("auth: {clients: [{name: a, token: " + HASH + ", namespaces: [\"acme/aws\"]}]}"))
                .hasMessageContaining("configuration key 'auth.clients[0].namespaces': 'acme/aws'");
        assertThatThrownBy(() -> load("auth: {clients: [{name: a, token: " + HASH + ", scope: [x]}]}"))
                .hasMessageContaining("unknown configuration key 'auth.clients[0].scope'");
    }

    @Test
    void aNameGivenTwiceStopsStartUp() {
        assertThatThrownBy(() -> load(
                        "auth: {clients: [{name: ci, token: " + HASH + "}, {name: ci, token: " + OTHER_HASH + "}]}"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("the configuration: configuration key 'auth.clients': the name 'ci' is given twice "
                        + "(expected: each name once)");
    }
}
