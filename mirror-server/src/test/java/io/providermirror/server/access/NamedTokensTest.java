package io.providermirror.server.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.server.config.AuthConfig;
import io.providermirror.server.config.ClientConfig;
import io.providermirror.testkit.SettableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tokens with names and scopes: which client a token is, the lines of a tokens file, names and tokens that collide,
 * what a scope reaches, and when each client was last seen.
 */
final class NamedTokensTest {

    @TempDir
    Path cache;

    private final SettableClock clock = new SettableClock();

    private MirrorAuth load(List<ClientConfig> clients, List<String> tokens, Path file) throws IOException {
        return MirrorAuth.load(new AuthConfig(tokens, file, null, null, clients), cache, clock);
    }

    @Test
    void eachTokenIsItsClientAndAPlainTokenIsNamedAfterItsHash() throws IOException {
        Path file = Files.writeString(
                cache.resolve("tokens"),
                "# clients\nci-main " + MirrorAuth.hash("ci")
                        + " hosts=registry.terraform.io namespaces=hashicorp,acme\n" + "\t"
                        + MirrorAuth.hash("plain-in-file") + "  \n");
        MirrorAuth auth = load(
                List.of(new ClientConfig("team-web", MirrorAuth.hash("web"), List.of(), List.of("web-*"))),
                List.of(MirrorAuth.hash("plain")),
                file);

        assertThat(auth.client("Bearer ci").orElseThrow().name()).isEqualTo("ci-main");
        assertThat(auth.client("Bearer ci").orElseThrow().scope())
                .isEqualTo(new ClientScope(List.of("registry.terraform.io"), List.of("hashicorp", "acme")));
        assertThat(auth.client("bearer web").orElseThrow().name()).isEqualTo("team-web");
        assertThat(auth.client("Bearer plain").orElseThrow())
                .isEqualTo(new Client("token-" + MirrorAuth.hash("plain").substring(7, 15), ClientScope.EVERYTHING));
        assertThat(auth.client("Bearer plain-in-file").orElseThrow().name())
                .isEqualTo("token-" + MirrorAuth.hash("plain-in-file").substring(7, 15));
        assertThat(auth.client("Bearer nobody")).isEmpty();
        assertThat(auth.client(null)).isEmpty();
        assertThat(auth.clients().stream().map(Client::name))
                .containsExactly(
                        "token-" + MirrorAuth.hash("plain").substring(7, 15),
                        "team-web",
                        "ci-main",
                        "token-" + MirrorAuth.hash("plain-in-file").substring(7, 15));
        assertThat(MirrorAuth.OPEN.client(null)).contains(Client.ANONYMOUS);
    }

    @Test
    void aMalformedLineIsRefusedNamingTheKeyTheFileTheLineAndWhy() throws IOException {
        String[] bad = {
            "CI " + MirrorAuth.hash("x"),
            "ci " + MirrorAuth.hash("x") + " hosts=a hosts=b",
            "ci " + MirrorAuth.hash("x") + " scope=a",
            "ci " + MirrorAuth.hash("x") + " namespaces=acme/aws",
            "ci",
            "ci the-token-itself",
        };
        String[] reasons = {
            "name: 'CI' (expected: 1 to 64 lowercase letters",
            "'hosts=b' is not hosts=... or namespaces=..., or is given twice",
            "'scope=a' is not hosts=... or namespaces=...",
            "namespaces: 'acme/aws' (expected: a namespace glob",
            "not a token hash line",
            "not a token hash line",
        };
        for (int i = 0; i < bad.length; i++) {
            Path file = Files.writeString(cache.resolve("tokens-" + i), "# first\n" + bad[i] + "\n");
            assertThatThrownBy(() -> load(List.of(), List.of(), file))
                    .as(bad[i])
                    .isInstanceOf(IOException.class)
                    .hasMessageStartingWith("auth.tokensFile " + file + ", line 2: " + reasons[i])
                    .hasMessageNotContaining("the-token-itself");
        }
    }

    @Test
    void aNameOrATokenOfTwoClientsIsRefused() throws IOException {
        Path sameName = Files.writeString(cache.resolve("same-name"), "ci " + MirrorAuth.hash("other") + "\n");
        assertThatThrownBy(() -> load(
                        List.of(new ClientConfig("ci", MirrorAuth.hash("ci"), List.of(), List.of())),
                        List.of(),
                        sameName))
                .hasMessage("auth.tokensFile " + sameName + ", line 1: the name 'ci' is already another client's "
                        + "(expected: each name once)");
        Path sameToken = Files.writeString(cache.resolve("same-token"), "web " + MirrorAuth.hash("ci") + "\n");
        assertThatThrownBy(() -> load(
                        List.of(new ClientConfig("ci", MirrorAuth.hash("ci"), List.of(), List.of())),
                        List.of(),
                        sameToken))
                .hasMessageStartingWith("auth.tokensFile " + sameToken + ", line 1: the token sha256:")
                .hasMessageEndingWith("is already the token of the client 'ci' (expected: one client per token)");
        assertThatThrownBy(() -> load(
                        List.of(new ClientConfig("ci", MirrorAuth.hash("plain"), List.of(), List.of())),
                        List.of(MirrorAuth.hash("plain")),
                        null))
                .hasMessageContaining("auth.clients: the token sha256:");
        // The same plain token twice (in the configuration and the file) is one client, as before.
        Path repeated = Files.writeString(cache.resolve("repeated"), MirrorAuth.hash("plain") + "\n");
        assertThat(load(List.of(), List.of(MirrorAuth.hash("plain")), repeated).clients())
                .hasSize(1);
    }

    @Test
    void operatorTokensTakeNamesButNoScope() throws IOException {
        Path file = Files.writeString(cache.resolve("operators"), "ops " + MirrorAuth.hash("op") + "\n");
        assertThat(TokenHashes.load(List.of(), file, "operator.tokensFile").accepts("Bearer op"))
                .isTrue();
        Path scoped = Files.writeString(
                cache.resolve("scoped-operators"), "ops " + MirrorAuth.hash("op") + " namespaces=acme\n");
        assertThatThrownBy(() -> TokenHashes.load(List.of(), scoped, "operator.tokensFile"))
                .hasMessage("operator.tokensFile " + scoped
                        + ", line 1: namespaces= limits a client token; operator tokens have no scope");
    }

    @Test
    void aScopeReachesTheHostsAndNamespacesItsGlobsMatch() {
        ClientScope scope =
                new ClientScope(List.of("registry.terraform.io", "*.example.com"), List.of("acme", "team-*"));

        assertThat(scope.allows("registry.terraform.io", Optional.of("acme"))).isTrue();
        assertThat(scope.allows("git.example.com", Optional.of("team-web"))).isTrue();
        assertThat(scope.allows("registry.terraform.io", Optional.of("ACME"))).isTrue();
        assertThat(scope.allows("registry.terraform.io", Optional.of("hashicorp")))
                .isFalse();
        assertThat(scope.allows("registry.opentofu.org", Optional.of("acme"))).isFalse();
        assertThat(scope.allows("example.com", Optional.of("acme"))).isFalse();
        // A glob matches the whole part, never a piece of it.
        assertThat(scope.allows("registry.terraform.io.evil.test", Optional.of("acme")))
                .isFalse();
        assertThat(scope.allows("registry.terraform.io", Optional.of("acme-fork")))
                .isFalse();
        assertThat(scope.allows("registry.terraform.io", Optional.of("my-team-web")))
                .isFalse();
        // Every namespace of a host (a listing, a search) only for a scope without namespace limits.
        assertThat(scope.allows("registry.terraform.io", Optional.empty())).isFalse();
        assertThat(scope.allowsHost("git.example.com")).isTrue();
        ClientScope hostsOnly = new ClientScope(List.of("registry.terraform.io"), List.of());
        assertThat(hostsOnly.allows("registry.terraform.io", Optional.empty())).isTrue();
        assertThat(hostsOnly.allows("registry.terraform.io", Optional.of("anything")))
                .isTrue();
        assertThat(hostsOnly.allows("example.com", Optional.of("anything"))).isFalse();
        assertThat(ClientScope.EVERYTHING.unlimited()).isTrue();
        assertThat(scope.describe()).isEqualTo("hosts registry.terraform.io, *.example.com; namespaces acme, team-*");
    }

    @Test
    void aClientIsSeenWhenItsTokenIsPresentedAndOnlyConfiguredNamesAreKept() throws IOException {
        MirrorAuth auth = load(
                List.of(
                        new ClientConfig("ci", MirrorAuth.hash("ci"), List.of(), List.of()),
                        new ClientConfig("idle", MirrorAuth.hash("idle"), List.of(), List.of())),
                List.of(),
                null);
        ClientSightings sightings = auth.sightings();
        assertThat(sightings.lastSeen("ci")).isEmpty();

        sightings.seen(auth.client("Bearer ci").orElseThrow());
        clock.advance(Duration.ofMinutes(5));
        sightings.seen(Client.ANONYMOUS);
        sightings.seen(new Client("not-configured", ClientScope.EVERYTHING));

        assertThat(sightings.lastSeen("ci")).contains(clock.instant().minus(Duration.ofMinutes(5)));
        assertThat(sightings.lastSeen("idle")).isEmpty();
        assertThat(sightings.lastSeen("anonymous")).isEmpty();
        assertThat(sightings.lastSeen("not-configured")).isEmpty();
        assertThat(sightings.all().keySet().stream().map(Client::name)).containsExactly("ci", "idle");
    }
}
