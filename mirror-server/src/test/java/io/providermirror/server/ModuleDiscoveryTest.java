package io.providermirror.server;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.ModuleArchives;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host's modules and providers found by one service discovery: one discovery document for both, and its module
 * registry remembered across a restart for when its discovery endpoint fails, as its provider registry is.
 */
final class ModuleDiscoveryTest {

    private static final String WELL_KNOWN = "/.well-known/terraform.json";

    @TempDir
    Path tmp;

    private FakeOrigin origin;
    private FakeModuleRegistry registry;
    private MirrorFixture mirror;

    @BeforeEach
    void start() {
        origin = FakeOrigin.start(tmp.resolve("origin"));
        registry = FakeModuleRegistry.of(origin);
        registry.serveArchive("/archives/net.tar.gz", ModuleArchives.tarGz(Map.of("main.tf", "# net\n")));
    }

    @AfterEach
    void stop() {
        if (mirror != null) {
            mirror.close();
        }
        origin.close();
    }

    private MirrorFixture.Builder builder() {
        return MirrorFixture.builder(tmp.resolve("cache"), origin).set("cache.indexTtl", "15m");
    }

    private static String modulePath(String module, String rest) {
        return "/registry/" + MirrorFixture.HOST + "/modules.v1/" + module + "/" + rest;
    }

    @Test
    void providersAndModulesOfAHostShareOneDiscoveryRequest() throws Exception {
        origin.publish("acme", "null", "1.0.0", "linux_amd64");
        registry.publish("corp", "net", "aws", "1.0.0", "/archives/net.tar.gz");
        mirror = builder().start();

        assertThat(mirror.get(mirror.providerPath("acme", "null") + "index.json")
                        .statusCode())
                .isEqualTo(200);
        assertThat(mirror.get(modulePath("corp/net/aws", "versions")).statusCode())
                .isEqualTo(200);
        assertThat(mirror.get(modulePath("corp/net/aws", "1.0.0/download")).statusCode())
                .isEqualTo(204);

        assertThat(origin.requestsMatching(WELL_KNOWN)).isEqualTo(1);
    }

    @Test
    void aModuleVersionListIsAnsweredWhileDiscoveryFailsAfterAFirstSuccessfulOne() throws Exception {
        registry.publish("corp", "net", "aws", "1.0.0", "/archives/net.tar.gz");
        registry.publish("corp", "dns", "aws", "2.0.0", "/archives/net.tar.gz");
        mirror = builder().start();
        assertThat(mirror.get(modulePath("corp/net/aws", "versions")).statusCode())
                .isEqualTo(200);
        mirror.close();
        mirror = null;

        // The origin's discovery endpoint breaks; its module registry still answers.
        origin.wireMock()
                .stubFor(get(urlEqualTo(WELL_KNOWN))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withHeader("Content-Type", "text/html")
                                .withBody("<h1>maintenance</h1>")));
        mirror = builder().start();

        HttpResponse<byte[]> versions = mirror.get(modulePath("corp/dns/aws", "versions"));
        assertThat(versions.statusCode())
                .as(new String(versions.body(), StandardCharsets.UTF_8))
                .isEqualTo(200);
        assertThat(new String(versions.body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"modules\":[{\"versions\":[{\"version\":\"2.0.0\"}]}]}");
        assertThat(origin.requestsMatching(WELL_KNOWN)).isEqualTo(2);
    }
}
