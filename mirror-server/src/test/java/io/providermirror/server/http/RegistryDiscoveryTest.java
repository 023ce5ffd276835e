package io.providermirror.server.http;

import static io.providermirror.server.http.EmbeddedMirror.exchange;
import static io.providermirror.server.http.EmbeddedMirror.get;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderAddress;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The discovery document of a routed registry host, {@code /registry/<hostname>/.well-known/terraform.json}: it
 * names the mirror's own modules.v1 and providers.v1 for that host (absolute URLs that route back to that host's
 * services), validates the hostname as those routes do, and leaves out what the policy refuses for all of the host.
 */
final class RegistryDiscoveryTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DOCUMENT = "/registry/example.test/.well-known/terraform.json";

    @org.junit.jupiter.api.io.TempDir
    static Path directory;

    private static EmbeddedMirror mirror;

    @BeforeAll
    static void start() throws Exception {
        mirror = EmbeddedMirror.start(
                directory,
                Map.of(
                        "policy",
                        Map.of(
                                "deny",
                                List.of(
                                        Map.of("provider", "noproviders.test/*/*"),
                                        Map.of("provider", "closed.test/*/*")),
                                "modules",
                                Map.of(
                                        "deny",
                                        List.of(
                                                Map.of("module", "nomodules.test/*/*/*"),
                                                Map.of("module", "closed.test/*/*/*"),
                                                Map.of("module", "example.test/blocked/*/*"))))));
    }

    @AfterAll
    static void stop() {
        mirror.close();
    }

    @AfterEach
    void closeConnections() {
        mirror.closeConnections();
    }

    @Test
    void parsesTheDocumentOfAHostNormalisedAsTheServicesRoutesAre() {
        assertThat(RouteParser.parse(DOCUMENT)).isEqualTo(new Route.RegistryDiscovery("example.test"));
        assertThat(RouteParser.parse("/registry/example.test:443/.well-known/terraform.json"))
                .isEqualTo(new Route.RegistryDiscovery("example.test"));
        assertThat(RouteParser.parse("/registry/example.test:8443/.well-known/terraform.json"))
                .isEqualTo(new Route.RegistryDiscovery("example.test:8443"));
        assertThat(Route.name(RouteParser.parse(DOCUMENT))).isEqualTo("registry_discovery");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/registry/.well-known/terraform.json",
                "/registry//.well-known/terraform.json",
                "/registry/Example.test/.well-known/terraform.json",
                "/registry/example.test/x/.well-known/terraform.json",
                "/registry/127.1/.well-known/terraform.json",
                "/registry/example.test:99999/.well-known/terraform.json",
                "/registry/-bad.test/.well-known/terraform.json",
            })
    void aMalformedHostnameIsA400(String path) throws Exception {
        Route route = RouteParser.parse(path);
        assertThat(route).isInstanceOf(Route.Invalid.class);
        assertThat(((Route.Invalid) route).status()).isEqualTo(400);

        EmbeddedMirror.Answer answer = exchange(mirror.connection(), get(path));
        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.errors().get(0).asText()).contains("hostname");
    }

    @Test
    void namesTheMirrorsModulesAndProvidersServicesOfTheHostAsAbsoluteUrlsOnTheAuthorityUsed() throws Exception {
        EmbeddedMirror.Answer answer = exchange(mirror.connection(), get(DOCUMENT));

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.header(HttpHeaderNames.CONTENT_TYPE)).isEqualTo("application/json");
        JsonNode document = JSON.readTree(answer.body());
        assertThat(document.get("modules.v1").asText())
                .isEqualTo("https://mirror.test/registry/example.test/modules.v1/");
        assertThat(document.get("providers.v1").asText())
                .isEqualTo("https://mirror.test/registry/example.test/providers.v1/");
        // What a client builds from them is the host's own services on the mirror.
        String modules = URI.create(document.get("modules.v1").asText()).getPath();
        assertThat(RouteParser.parse(modules + "acme/net/aws/versions"))
                .isEqualTo(new Route.ModuleVersions(new ModuleAddress("example.test", "acme", "net", "aws")));
        String providers = URI.create(document.get("providers.v1").asText()).getPath();
        assertThat(RouteParser.parse(providers + "acme/tool/versions"))
                .isEqualTo(new Route.RegistryVersions(ProviderAddress.parse("example.test/acme/tool")));
    }

    @Test
    void headAnnouncesTheDocumentsLengthWithoutIt() throws Exception {
        EmbeddedMirror.Answer whole = exchange(mirror.connection(), get(DOCUMENT));
        EmbeddedMirror.Answer head = exchange(mirror.connection(), EmbeddedMirror.request(HttpMethod.HEAD, DOCUMENT));

        assertThat(head.status()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(head.header(HttpHeaderNames.CONTENT_LENGTH)).isEqualTo(Integer.toString(whole.body().length));
    }

    @Test
    void withoutAHostHeaderThereIsNoAuthorityToNameAndTheAnswerIsA400() throws Exception {
        FullHttpRequest request = get(DOCUMENT);
        request.headers().remove(HttpHeaderNames.HOST);

        EmbeddedMirror.Answer answer = exchange(mirror.connection(), request);

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.errors().get(0).asText()).contains("Host header");
    }

    @ParameterizedTest
    @ValueSource(strings = {"evil.test/modules.v1", "user@evil.test", "evil.test:8443/x", "evil.test\"x"})
    void aHostHeaderThatIsNoAuthorityIsA400AndNeverWrittenIntoALink(String host) throws Exception {
        FullHttpRequest request = get(DOCUMENT);
        request.headers().set(HttpHeaderNames.HOST, host);

        EmbeddedMirror.Answer answer = exchange(mirror.connection(), request);

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.errors().get(0).asText()).contains("Host header");
        assertThat(answer.text()).doesNotContain("evil.test");
    }

    @Test
    void theStatusPageNamesTheConfiguredAuthorityWhenTheHostHeaderIsNoAuthority() throws Exception {
        FullHttpRequest hostile = get("/");
        hostile.headers().set(HttpHeaderNames.HOST, "evil.test/x");
        FullHttpRequest plain = get("/");
        plain.headers().set(HttpHeaderNames.HOST, "mirror.test:18443");

        String refused = EmbeddedMirror.exchangeAnsweredLater(mirror.connection(), hostile)
                .text();
        String named =
                EmbeddedMirror.exchangeAnsweredLater(mirror.connection(), plain).text();

        assertThat(refused).contains("https://localhost:8443/registry/").doesNotContain("evil.test");
        assertThat(named).contains("https://mirror.test:18443/registry/").doesNotContain("localhost:8443");
    }

    @Test
    void anIpAddressThatIsNotConfiguredIsRefusedAsItsServicesAre() throws Exception {
        EmbeddedMirror.Answer answer =
                exchange(mirror.connection(), get("/registry/192.0.2.1/.well-known/terraform.json"));
        EmbeddedMirror.Answer versions =
                exchange(mirror.connection(), get("/registry/192.0.2.1/providers.v1/acme/tool/versions"));

        assertThat(answer.status()).isEqualTo(403).isEqualTo(versions.status());
        assertThat(answer.errors().get(0).asText()).contains("192.0.2.1").contains("IP address");
    }

    @Test
    void aServiceThePolicyRefusesForAllOfTheHostIsLeftOut() throws Exception {
        JsonNode noProviders = JSON.readTree(
                exchange(mirror.connection(), get("/registry/noproviders.test/.well-known/terraform.json"))
                        .body());
        JsonNode noModules =
                JSON.readTree(exchange(mirror.connection(), get("/registry/nomodules.test/.well-known/terraform.json"))
                        .body());

        assertThat(noProviders.has("providers.v1")).isFalse();
        assertThat(noProviders.get("modules.v1").asText()).endsWith("/registry/noproviders.test/modules.v1/");
        assertThat(noModules.has("modules.v1")).isFalse();
        assertThat(noModules.get("providers.v1").asText()).endsWith("/registry/nomodules.test/providers.v1/");
    }

    @Test
    void aRuleForPartOfTheHostLeavesItsServiceIn() throws Exception {
        JsonNode document =
                JSON.readTree(exchange(mirror.connection(), get(DOCUMENT)).body());

        assertThat(document.has("modules.v1"))
                .as("example.test/blocked/*/* is denied, not all of it")
                .isTrue();
    }

    @Test
    void aHostThePolicyRefusesEntirelyGetsThePolicyRefusalNamingBothRules() throws Exception {
        EmbeddedMirror.Answer answer =
                exchange(mirror.connection(), get("/registry/closed.test/.well-known/terraform.json"));

        assertThat(answer.status()).isEqualTo(404);
        assertThat(answer.errors().get(0).asText())
                .contains("refused by this mirror's policy")
                .contains("policy.deny[1]")
                .contains("policy.modules.deny[1]");
    }
}
