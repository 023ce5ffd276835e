package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.matching;
import static com.github.tomakehurst.wiremock.client.WireMock.notMatching;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.FakeOriginExtension;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A private origin that wants a bearer token: the token goes to its discovery and registry API, never to a
 * download host on another authority; it comes from the configuration, a file, or the CLI's credentials
 * file. Download URLs that stop working (signed URLs expire) are renewed from the origin.
 */
final class PrivateOriginTest {

    private static final String TOKEN = "s3cret.token-value";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @RegisterExtension
    final FakeOriginExtension fixture = new FakeOriginExtension();

    private FakeOrigin downloads;
    private FakeOrigin.Release release;

    @BeforeEach
    void start() {
        downloads = FakeOrigin.start(fixture.origin().certificates());
        release = fixture.origin().publish("acme", "private", "1.0.0", FakeOrigin.Tamper.NONE, 10_000, "linux_amd64");
        // The registry API and discovery want the token; anything without it gets 401.
        for (var header : new com.github.tomakehurst.wiremock.matching.StringValuePattern[] {
            absent(), notMatching("Bearer " + java.util.regex.Pattern.quote(TOKEN))
        }) {
            fixture.origin()
                    .wireMock()
                    .stubFor(any(urlPathMatching("/(v1/.*|\\.well-known/.*)"))
                            .atPriority(1)
                            .withHeader("Authorization", header)
                            .willReturn(aResponse().withStatus(401)));
        }
        // The archive lives on a download host of another authority.
        downloads
                .wireMock()
                .stubFor(get(urlEqualTo("/dl/private.zip"))
                        .willReturn(aResponse().withBody(release.archives().get("linux_amd64"))));
        fixture.origin()
                .pointArchiveAt(release, "linux_amd64", downloads.discoveryUrl().resolve("/dl/private.zip"));
    }

    @AfterEach
    void stop() {
        downloads.close();
    }

    /** The private origin, with its download host (another authority on an internal address) listed for it. */
    private MirrorFixture.Builder privateMirror() {
        return MirrorFixture.builder(tmp.resolve("cache"), fixture.origin())
                .set(
                        "upstream.hosts.example\\.test.downloadHosts",
                        java.util.List.of(
                                "127.0.0.1:" + downloads.discoveryUrl().getPort()));
    }

    private void installsWithTokenSentOnlyToTheRegistry(MirrorFixture mirror) throws Exception {
        String base = mirror.providerPath("acme", "private");
        assertThat(mirror.get(base + "index.json").statusCode()).isEqualTo(200);
        assertThat(mirror.get(base + "1.0.0.json").statusCode()).isEqualTo(200);
        HttpResponse<byte[]> archive = mirror.get(base + "terraform-provider-private_1.0.0_linux_amd64.zip");
        assertThat(archive.statusCode()).isEqualTo(200);
        assertThat(archive.body()).isEqualTo(release.archives().get("linux_amd64"));

        assertThat(fixture.origin()
                        .wireMock()
                        .countRequestsMatching(anyRequestedFor(urlPathMatching("/(v1/.*|\\.well-known/.*)"))
                                .withHeader("Authorization", absent())
                                .build())
                        .getCount())
                .as("every registry request carried the token")
                .isZero();
        assertThat(downloads
                        .wireMock()
                        .countRequestsMatching(
                                getRequestedFor(urlEqualTo("/dl/private.zip")).build())
                        .getCount())
                .isEqualTo(1);
        assertThat(downloads
                        .wireMock()
                        .countRequestsMatching(anyRequestedFor(anyUrl())
                                .withHeader("Authorization", matching(".*"))
                                .build())
                        .getCount())
                .as("the download host on another authority never saw the token")
                .isZero();
    }

    @Test
    void aTokenFromTheConfiguration() throws Exception {
        try (MirrorFixture mirror = privateMirror()
                .set("upstream.hosts.example\\.test.token", TOKEN)
                .start()) {
            installsWithTokenSentOnlyToTheRegistry(mirror);
        }
    }

    @Test
    void aTokenFromAFile() throws Exception {
        Path file = Files.writeString(tmp.resolve("token"), TOKEN + "\n");
        try (MirrorFixture mirror = privateMirror()
                .set("upstream.hosts.example\\.test.tokenFile", file.toString())
                .start()) {
            installsWithTokenSentOnlyToTheRegistry(mirror);
        }
    }

    @Test
    void aTokenFromTheCliCredentialsFile() throws Exception {
        Path file = Files.writeString(
                tmp.resolve("credentials.tfrc.json"),
                "{\"credentials\": {\"example.test\": {\"token\": \"" + TOKEN
                        + "\"}, \"other.test\": {\"token\": \"x\"}}}");
        try (MirrorFixture mirror = privateMirror()
                .set("upstream.terraformCredentials", file.toString())
                .start()) {
            installsWithTokenSentOnlyToTheRegistry(mirror);
        }
    }

    @Test
    void withoutATokenTheErrorSaysWhatTheOriginWants() throws Exception {
        try (MirrorFixture mirror = privateMirror().start()) {
            HttpResponse<byte[]> response = mirror.get(mirror.providerPath("acme", "private") + "index.json");
            assertThat(response.statusCode()).isEqualTo(502);
            assertThat(JSON.readTree(response.body()).get("errors").get(0).asText())
                    .contains("answered HTTP 401")
                    .contains("upstream.hosts.<hostname>.token");
        }
    }

    @Test
    void aDownloadUrlThatStoppedWorkingIsRenewedFromTheOrigin() throws Exception {
        try (MirrorFixture mirror = privateMirror()
                .set("upstream.hosts.example\\.test.token", TOKEN)
                .start()) {
            String base = mirror.providerPath("acme", "private");
            assertThat(mirror.get(base + "1.0.0.json").statusCode()).isEqualTo(200);
            // Later the signed URL the mirror kept has expired, and the origin hands out another one.
            downloads
                    .wireMock()
                    .stubFor(get(urlEqualTo("/dl/private.zip"))
                            .willReturn(aResponse().withStatus(403)));
            downloads
                    .wireMock()
                    .stubFor(get(urlEqualTo("/dl/renewed.zip"))
                            .willReturn(aResponse().withBody(release.archives().get("linux_amd64"))));
            fixture.origin()
                    .pointArchiveAt(
                            release, "linux_amd64", downloads.discoveryUrl().resolve("/dl/renewed.zip"));

            HttpResponse<byte[]> archive = mirror.get(base + "terraform-provider-private_1.0.0_linux_amd64.zip");

            assertThat(archive.statusCode()).isEqualTo(200);
            assertThat(archive.body()).isEqualTo(release.archives().get("linux_amd64"));
            assertThat(downloads
                            .wireMock()
                            .countRequestsMatching(getRequestedFor(urlEqualTo("/dl/renewed.zip"))
                                    .build())
                            .getCount())
                    .isEqualTo(1);
        }
    }

    @Test
    void aRenewedDownloadDocumentMustNameTheVerifiedHash() throws Exception {
        try (MirrorFixture mirror = privateMirror()
                .set("upstream.hosts.example\\.test.token", TOKEN)
                .start()) {
            String base = mirror.providerPath("acme", "private");
            assertThat(mirror.get(base + "1.0.0.json").statusCode()).isEqualTo(200);
            downloads
                    .wireMock()
                    .stubFor(get(urlEqualTo("/dl/private.zip"))
                            .willReturn(aResponse().withStatus(404)));
            String documentPath = "/v1/providers/acme/private/1.0.0/download/linux/amd64";
            ObjectNode document = (ObjectNode) JSON.readTree(java.net.http.HttpClient.newBuilder()
                    .sslContext(io.providermirror.upstream.TrustedCertificates.sslContext(
                            fixture.origin().caCertificate()))
                    .build()
                    .send(
                            java.net.http.HttpRequest.newBuilder(
                                            fixture.origin().discoveryUrl().resolve(documentPath))
                                    .header("Authorization", "Bearer " + TOKEN)
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body());
            document.put("shasum", "0".repeat(64)).put("download_url", "/dl/swapped.zip");
            fixture.origin()
                    .wireMock()
                    .stubFor(get(urlEqualTo(documentPath))
                            .willReturn(aResponse()
                                    .withHeader("Content-Type", "application/json")
                                    .withBody(document.toString())));

            HttpResponse<byte[]> archive = mirror.get(base + "terraform-provider-private_1.0.0_linux_amd64.zip");

            assertThat(archive.statusCode()).isEqualTo(502);
            assertThat(JSON.readTree(archive.body()).get("errors").get(0).asText())
                    .contains("the origin now announces")
                    .contains("but verified");
        }
    }
}
