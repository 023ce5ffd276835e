package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.temporaryRedirect;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static io.providermirror.server.scenario.MirrorFixture.error;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.FakeOriginExtension;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An attacker controls a configured origin (its registry, download documents and redirects) and tries to make
 * the mirror reach an internal service on loopback, or to use the mirror as a port scanner. Internal
 * destinations are reached only when configured for that very origin, on that very port; what an origin
 * returned never appears in an error, only what failed.
 */
final class InternalNetworkTest {

    private static final String PLATFORM = "linux_amd64";

    @TempDir
    Path tmp;

    @RegisterExtension
    final FakeOriginExtension fixture = new FakeOriginExtension();

    private FakeOrigin internal;
    private FakeOrigin.Release release;

    @BeforeEach
    void start() {
        // The internal service presents a certificate the mirror trusts: only the destination check stops it.
        internal = FakeOrigin.start(fixture.origin().certificates());
        internal.wireMock()
                .stubFor(get(urlEqualTo("/secret")).willReturn(aResponse().withBody("internal secret")));
        release = fixture.origin().publish("acme", "ssrf", "1.0.0", PLATFORM);
    }

    @AfterEach
    void stop() {
        internal.close();
    }

    private URI secret() {
        return internal.discoveryUrl().resolve("/secret");
    }

    private HttpResponse<byte[]> archive(MirrorFixture mirror) throws Exception {
        return mirror.get(mirror.providerPath("acme", "ssrf") + release.fileName(PLATFORM));
    }

    private int internalRequests() {
        return internal.wireMock().getAllServeEvents().size();
    }

    @Test
    void aDownloadUrlAtAnInternalServiceIsRefusedAndTheServiceIsNeverAsked() throws Exception {
        fixture.origin().pointArchiveAt(release, PLATFORM, secret());
        try (MirrorFixture mirror =
                MirrorFixture.builder(tmp.resolve("cache"), fixture.origin()).start()) {
            HttpResponse<byte[]> response = archive(mirror);

            assertThat(response.statusCode()).isEqualTo(403);
            assertThat(error(response))
                    .contains("example.test/acme/ssrf")
                    .contains("internal address")
                    .contains("origin example.test");
            assertThat(internalRequests()).isZero();
        }
    }

    @Test
    void aRedirectToAnInternalServiceIsRefused() throws Exception {
        fixture.origin()
                .wireMock()
                .stubFor(get(urlEqualTo("/dl/elsewhere.zip")).willReturn(temporaryRedirect(secret().toString())));
        fixture.origin()
                .pointArchiveAt(
                        release, PLATFORM, fixture.origin().discoveryUrl().resolve("/dl/elsewhere.zip"));
        try (MirrorFixture mirror =
                MirrorFixture.builder(tmp.resolve("cache"), fixture.origin()).start()) {
            HttpResponse<byte[]> response = archive(mirror);

            assertThat(response.statusCode()).isEqualTo(403);
            assertThat(internalRequests()).isZero();
        }
    }

    @Test
    void anInternalAddressConfiguredForAnotherOriginIsNoAllowanceForThisOne() throws Exception {
        fixture.origin().pointArchiveAt(release, PLATFORM, secret());
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), fixture.origin())
                .set(
                        "upstream.hosts.other\\.test.discoveryUrl",
                        internal.discoveryUrl().toString())
                .start()) {
            HttpResponse<byte[]> response = archive(mirror);

            assertThat(response.statusCode()).isEqualTo(403);
            assertThat(internalRequests()).isZero();
        }
    }

    @Test
    void aDownloadHostConfiguredForTheOriginIsReachedOnItsPortOnly() throws Exception {
        internal.wireMock()
                .stubFor(get(urlEqualTo("/dl/ssrf.zip"))
                        .willReturn(aResponse().withBody(release.archives().get(PLATFORM))));
        fixture.origin()
                .pointArchiveAt(release, PLATFORM, internal.discoveryUrl().resolve("/dl/ssrf.zip"));
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), fixture.origin())
                .set("upstream.hosts.example\\.test.downloadHosts", List.of("127.0.0.1:" + freePort()))
                .start()) {
            assertThat(archive(mirror).statusCode())
                    .as("another port of the download host")
                    .isEqualTo(403);
        }
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache2"), fixture.origin())
                .set(
                        "upstream.hosts.example\\.test.downloadHosts",
                        List.of("127.0.0.1:" + internal.discoveryUrl().getPort()))
                .start()) {
            HttpResponse<byte[]> response = archive(mirror);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo(release.archives().get(PLATFORM));
        }
    }

    @Test
    void aMalformedDownloadHostStopsStartUpNamingTheKey() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new io.providermirror.server.config.ConfigLoader(
                                Map.of())
                        .loadText("upstream: {hosts: {example.test: {downloadHosts: [\"https://artifacts.corp/\"]}}}"))
                .hasMessageContaining("configuration key 'upstream.hosts.example.test.downloadHosts': "
                        + "'https://artifacts.corp/' (expected: a lowercase host name or IPv4 address, optionally with "
                        + ":port, e.g. artifacts.corp)");
    }

    @Test
    void aRedirectFromHttpsToPlainHttpIsRefused() throws Exception {
        WireMockServer plain = new WireMockServer(
                WireMockConfiguration.options().bindAddress("127.0.0.1").dynamicPort());
        plain.start();
        try {
            plain.stubFor(get(urlEqualTo("/dl/ssrf.zip"))
                    .willReturn(aResponse().withBody(release.archives().get(PLATFORM))));
            fixture.origin()
                    .wireMock()
                    .stubFor(get(urlEqualTo("/dl/downgrade.zip"))
                            .willReturn(temporaryRedirect("http://127.0.0.1:" + plain.port() + "/dl/ssrf.zip")));
            fixture.origin()
                    .pointArchiveAt(
                            release, PLATFORM, fixture.origin().discoveryUrl().resolve("/dl/downgrade.zip"));
            try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), fixture.origin())
                    .set("upstream.hosts.example\\.test.downloadHosts", List.of("127.0.0.1:" + plain.port()))
                    .start()) {
                HttpResponse<byte[]> response = archive(mirror);

                assertThat(response.statusCode()).isEqualTo(502);
                assertThat(error(response)).contains("example.test/acme/ssrf").contains("from https to plain http");
                assertThat(plain.getAllServeEvents()).isEmpty();
            }
        } finally {
            plain.stop();
        }
    }

    @Test
    void anUnconfiguredAddressAnswersTheSameWhateverListensThere() throws Exception {
        int listening = internal.discoveryUrl().getPort();
        int closed = freePort();
        try (MirrorFixture mirror =
                MirrorFixture.builder(tmp.resolve("cache"), fixture.origin()).start()) {
            HttpResponse<byte[]> open = mirror.get("/providers/127.0.0.1:" + listening + "/acme/ssrf/index.json");
            HttpResponse<byte[]> shut = mirror.get("/providers/127.0.0.1:" + closed + "/acme/ssrf/index.json");

            assertThat(open.statusCode()).isEqualTo(403);
            assertThat(shut.statusCode()).isEqualTo(403);
            assertThat(new String(open.body(), StandardCharsets.UTF_8).replace(String.valueOf(listening), "PORT"))
                    .isEqualTo(new String(shut.body(), StandardCharsets.UTF_8).replace(String.valueOf(closed), "PORT"));
            assertThat(error(open))
                    .contains("127.0.0.1:" + listening + "/acme/ssrf")
                    .contains("IP address");
            assertThat(mirror.get("/providers/10.0.0.1/acme/ssrf/index.json").statusCode())
                    .isEqualTo(403);
            HttpResponse<byte[]> openByName = mirror.get("/providers/localhost:" + listening + "/acme/ssrf/index.json");
            HttpResponse<byte[]> shutByName = mirror.get("/providers/localhost:" + closed + "/acme/ssrf/index.json");
            assertThat(openByName.statusCode()).isEqualTo(403);
            assertThat(new String(openByName.body(), StandardCharsets.UTF_8).replace(String.valueOf(listening), "PORT"))
                    .isEqualTo(new String(shutByName.body(), StandardCharsets.UTF_8)
                            .replace(String.valueOf(closed), "PORT"));
            assertThat(internalRequests()).isZero();
        }
    }

    @Test
    void numericSpellingsOfAnAddressAreMalformedHostnames() throws Exception {
        try (MirrorFixture mirror =
                MirrorFixture.builder(tmp.resolve("cache"), fixture.origin()).start()) {
            for (String host : new String[] {"127.1", "0x7f.1", "0177.0.0.1", "2130706433"}) {
                HttpResponse<byte[]> response = mirror.get("/providers/" + host + "/acme/ssrf/index.json");
                assertThat(response.statusCode()).as(host).isEqualTo(400);
                assertThat(error(response)).as(host).contains("malformed hostname '" + host + "'");
            }
        }
    }

    @Test
    void aFileDownloadUrlGivesA502NamingTheProviderAndTheOrigin() throws Exception {
        fixture.origin().pointArchiveAt(release, PLATFORM, URI.create("file:///etc/passwd"));
        try (MirrorFixture mirror =
                MirrorFixture.builder(tmp.resolve("cache"), fixture.origin()).start()) {
            HttpResponse<byte[]> response = archive(mirror);

            assertThat(response.statusCode()).isEqualTo(502);
            assertThat(error(response))
                    .contains("example.test/acme/ssrf 1.0.0 " + PLATFORM)
                    .contains("the origin example.test")
                    .contains("not an http(s) URL");
            assertThat(mirror.get("/metrics").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void anArchiveThatFailsItsHashGivesAnErrorWithoutTheDigestOfWhatArrived() throws Exception {
        FakeOrigin.Release tampered =
                fixture.origin().publish("acme", "tampered", "1.0.0", FakeOrigin.Tamper.ARCHIVE_BYTES, 0, PLATFORM);
        String received = HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256")
                        .digest(FakeOrigin.tampered(tampered.archives().get(PLATFORM))));
        // Readers of a fill wait for it to end, so the failure is answered as a 502 rather than an aborted body.
        try (MirrorFixture mirror =
                MirrorFixture.builder(tmp.resolve("cache"), fixture.origin()).start(FillsEndBeforeRead::new)) {
            HttpResponse<byte[]> response =
                    mirror.get(mirror.providerPath("acme", "tampered") + tampered.fileName(PLATFORM));

            assertThat(response.statusCode()).isEqualTo(502);
            assertThat(error(response))
                    .contains("example.test/acme/tampered")
                    .contains("does not match the sha256")
                    .doesNotContain(received)
                    .doesNotContainPattern("[0-9a-f]{64}");
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
