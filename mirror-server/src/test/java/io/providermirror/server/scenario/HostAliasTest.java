package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static io.providermirror.server.scenario.MirrorFixture.error;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.FakeOriginExtension;
import io.providermirror.testkit.TestPgpKey;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code host:443} is {@code host}: every per-host rule (policy, discovery URL, parent mirror, pinned keys,
 * unsigned releases) applies through the alias; another port of a configured host is refused unless configured.
 */
final class HostAliasTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ALIAS = "/providers/example.test:443/acme/";

    @TempDir
    static Path tmp;

    @RegisterExtension
    static final FakeOriginExtension fixture = new FakeOriginExtension();

    @BeforeAll
    static void start() {
        fixture.origin().publish("acme", "signed", "1.0.0", "linux_amd64");
        fixture.origin().publish("acme", "unsigned", "1.0.0", FakeOrigin.Tamper.UNSIGNED, 0, "linux_amd64");
        fixture.origin().publish("acme", "denied", "1.0.0", "linux_amd64");
    }

    @Test
    void theDefaultPortOfAHostUsesItsDiscoveryUrl() throws Exception {
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("discovery"), fixture.origin())
                .start()) {
            assertThat(mirror.get(ALIAS + "signed/index.json").statusCode()).isEqualTo(200);
            assertThat(mirror.get(ALIAS + "signed/terraform-provider-signed_1.0.0_linux_amd64.zip")
                            .statusCode())
                    .isEqualTo(200);
        }
    }

    @Test
    void aHostConfiguredWithItsDefaultPortIsTheHostItself() throws Exception {
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("configured"), fixture.origin())
                .set(
                        "upstream.hosts",
                        Map.of(
                                "example.test:443",
                                Map.of(
                                        "discoveryUrl",
                                        fixture.origin().discoveryUrl().toString())))
                .start()) {
            assertThat(mirror.get(mirror.providerPath("acme", "signed") + "index.json")
                            .statusCode())
                    .isEqualTo(200);
        }
    }

    @Test
    void policyDenyAppliesThroughTheAlias() throws Exception {
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("deny"), fixture.origin())
                .set("policy.deny", List.of(Map.of("provider", "example.test/acme/denied")))
                .start()) {
            HttpResponse<byte[]> response = mirror.get(ALIAS + "denied/index.json");
            assertThat(response.statusCode()).isEqualTo(404);
            assertThat(error(response)).contains("policy.deny[0]");
            assertThat(mirror.get(ALIAS + "denied/terraform-provider-denied_1.0.0_linux_amd64.zip")
                            .statusCode())
                    .isEqualTo(404);
        }
    }

    @Test
    void pinnedKeysApplyThroughTheAlias() throws Exception {
        TestPgpKey stranger = TestPgpKey.generate("Stranger <x@example.test>");
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("pinned"), fixture.origin())
                .set("upstream.hosts.example\\.test.trustedKeys", List.of(stranger.primaryFingerprint()))
                .start()) {
            HttpResponse<byte[]> response = mirror.get(ALIAS + "signed/1.0.0.json");
            assertThat(response.statusCode()).isEqualTo(502);
            assertThat(error(response)).contains("is among the keys pinned in upstream.hosts.example.test.trustedKeys");
        }
    }

    @Test
    void allowUnsignedAppliesThroughTheAlias() throws Exception {
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("unsigned"), fixture.origin())
                .set("upstream.hosts.example\\.test.allowUnsigned", true)
                .start()) {
            assertThat(mirror.get(ALIAS + "unsigned/1.0.0.json").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aParentMirrorAppliesThroughTheAlias() throws Exception {
        fixture.origin()
                .wireMock()
                .stubFor(get(urlEqualTo("/parent/example.test/acme/chained/index.json"))
                        .willReturn(aResponse()
                                .withHeader("Content-Type", "application/json")
                                .withBody("{\"versions\":{\"2.0.0\":{}}}")));
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("parent"), fixture.origin())
                .set(
                        "upstream.hosts",
                        Map.of(
                                "example.test",
                                Map.of("mirrorUrl", fixture.origin().discoveryUrl() + "parent/")))
                .start()) {
            HttpResponse<byte[]> response = mirror.get(ALIAS + "chained/index.json");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(response.body()).get("versions").has("2.0.0"))
                    .isTrue();
        }
    }

    @Test
    void anotherPortOfAConfiguredHostIsRefusedUnlessConfiguredItself() throws Exception {
        try (MirrorFixture mirror =
                MirrorFixture.builder(tmp.resolve("port"), fixture.origin()).start()) {
            HttpResponse<byte[]> response = mirror.get("/providers/example.test:8443/acme/signed/index.json");
            assertThat(response.statusCode()).isEqualTo(403);
            assertThat(error(response))
                    .contains("example.test:8443/acme/signed")
                    .contains("another port of the configured host example.test");
        }
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("port2"), fixture.origin())
                .set(
                        "upstream.hosts.example\\.test:8443.discoveryUrl",
                        fixture.origin().discoveryUrl().toString())
                .start()) {
            assertThat(mirror.get("/providers/example.test:8443/acme/signed/index.json")
                            .statusCode())
                    .isEqualTo(200);
        }
    }

    @Test
    void theDefaultPortOfAHostConfiguredOnlyWithAnotherPortIsRefusedToo() throws Exception {
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("reverse"), fixture.origin())
                .set(
                        "upstream.hosts.corp\\.test:8443.discoveryUrl",
                        fixture.origin().discoveryUrl().toString())
                .start()) {
            assertThat(mirror.get("/providers/corp.test:8443/acme/signed/index.json")
                            .statusCode())
                    .isEqualTo(200);
            HttpResponse<byte[]> response = mirror.get("/providers/corp.test/acme/signed/index.json");
            assertThat(response.statusCode()).isEqualTo(403);
            assertThat(error(response)).contains("corp.test is another port of the configured host corp.test:8443");
        }
    }
}
