package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.providermirror.testkit.FakeOrigin;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The status page tells the truth, whole server against a signed fake origin: refused archives make their
 * origin failing and appear among the recent problems, origins are named by their hostname, each provider has a
 * view of its versions and platforms with hashes, signing key and verification time, the generated CA is
 * offered, and the last hour's traffic is drawn.
 */
final class StatusPageTest {

    @RegisterExtension
    static final MirrorExtension fixture = MirrorExtension.withDefaults();

    private static String body(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    private static String page() throws IOException, InterruptedException {
        HttpResponse<byte[]> response = fixture.mirror().get("/");
        assertThat(response.statusCode()).isEqualTo(200);
        return body(response);
    }

    /** The HTML of the first element {@code tag} whose text contains {@code marker}, e.g. a table row. */
    private static String element(String html, String tag, String marker) {
        Matcher m = Pattern.compile("<" + tag + "[ >].*?</" + tag + ">", Pattern.DOTALL)
                .matcher(html);
        while (m.find()) {
            if (m.group().contains(marker)) {
                return m.group();
            }
        }
        throw new AssertionError("no <" + tag + "> containing " + marker + " in " + html);
    }

    private static void fetchArchive(String type, String version, String platform) throws Exception {
        HttpResponse<byte[]> response = fixture.mirror()
                .get(fixture.mirror().providerPath("acme", type) + "terraform-provider-" + type + "_" + version + "_"
                        + platform + ".zip");
        assertThat(response.statusCode()).isEqualTo(200);
    }

    @Test
    void refusedArchivesMakeTheirOriginFailingAndAreListedAmongRecentProblems() throws Exception {
        fixture.origin().publish("acme", "refused", "1.0.0", FakeOrigin.Tamper.ARCHIVE_BYTES, 0, "linux_amd64");
        String path =
                fixture.mirror().providerPath("acme", "refused") + "terraform-provider-refused_1.0.0_linux_amd64.zip";
        for (int attempt = 1; attempt <= 3; attempt++) {
            try {
                assertThat(fixture.mirror().get(path).statusCode()).isEqualTo(502);
            } catch (IOException aborted) {
                // The refusal may also end a response that had started: the stream is cut short.
            }
            int refused = attempt;
            // A CLI's retries of one refusal are one row of the recent problems, with how often it happened.
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> Pattern.compile("<code>example\\.test/acme/refused 1\\.0\\.0 linux_amd64</code>"
                                            + "</td><td class=\"small wrap\">[^<]*</td><td class=\"count\">" + refused
                                            + "</td>")
                                    .matcher(page())
                                    .results()
                                    .count()
                            == 1);
        }

        String html = page();
        String row = element(element(html, "table", "Refused by verification"), "tr", "<code>example.test</code>");
        assertThat(row).contains("failing").contains("<span class=\"bad\">3</span>");
        String problems = element(html, "table", "What failed");
        assertThat(problems)
                .contains("<code>example.test/acme/refused 1.0.0 linux_amd64</code>")
                .contains("refused: the archive_hash check failed");
    }

    @Test
    void theSameDataIsAvailableAsJsonForScripts() throws Exception {
        fixture.origin().publish("acme", "scripted", "2.0.0", "linux_amd64", "darwin_arm64");
        fetchArchive("scripted", "2.0.0", "linux_amd64");
        fetchArchive("scripted", "2.0.0", "darwin_arm64");

        HttpResponse<byte[]> response = fixture.mirror().get("/status.json");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        com.fasterxml.jackson.databind.JsonNode status =
                new com.fasterxml.jackson.databind.ObjectMapper().readTree(response.body());
        assertThat(status.get("offline").asBoolean()).isFalse();
        assertThat(status.get("cache").get("providerArchives").asLong()).isGreaterThanOrEqualTo(2);
        com.fasterxml.jackson.databind.JsonNode provider = java.util.stream.StreamSupport.stream(
                        status.get("providers").spliterator(), false)
                .filter(p -> p.get("address").asText().equals("example.test/acme/scripted"))
                .findFirst()
                .orElseThrow();
        assertThat(provider.get("versions").get("2.0.0"))
                .extracting(com.fasterxml.jackson.databind.JsonNode::asText)
                .containsExactly("darwin_arm64", "linux_amd64");
        assertThat(status.get("origins"))
                .anySatisfy(origin -> assertThat(origin.get("origin").asText()).isEqualTo("example.test"));
        String front = page();
        assertThat(element(front, "div", "Provider archives"))
                .contains(status.get("cache").get("providerArchives").asText());
        assertThat(front).contains("Module versions cached");
    }

    @Test
    void originsAreNamedByTheirHostnameWithWhereTheyAreReachedWhileMetricsKeepTheAuthority() throws Exception {
        fixture.origin().publish("acme", "named", "1.0.0", "linux_amd64");
        fetchArchive("named", "1.0.0", "linux_amd64");
        String authority = "127.0.0.1:" + fixture.origin().discoveryUrl().getPort();

        String row = element(element(page(), "table", "Refused by verification"), "tr", "<code>example.test</code>");

        assertThat(row)
                .contains("discovery at " + fixture.origin().discoveryUrl())
                .contains("contacted: " + authority);
        assertThat(page()).doesNotContain("<code>" + authority + "</code>");
        assertThat(body(fixture.mirror().get("/metrics")))
                .as("the host tag is still the authority contacted, as documented")
                .contains("mirror_upstream_requests_seconds_count{host=\"" + authority + "\"");
    }

    @Test
    void aProvidersViewShowsEachVersionsOwnPlatformsWithHashesSigningKeyAndVerificationTime() throws Exception {
        FakeOrigin.Release old = fixture.origin().publish("acme", "detailed", "1.0.0", "linux_amd64", "darwin_arm64");
        FakeOrigin.Release latest =
                fixture.origin().publish("acme", "detailed", "1.1.0", "linux_amd64", "windows_amd64");
        fetchArchive("detailed", "1.0.0", "linux_amd64");
        fetchArchive("detailed", "1.0.0", "darwin_arm64");
        fetchArchive("detailed", "1.1.0", "linux_amd64");
        String view = "/status/providers/example.test/acme/detailed";
        await().atMost(Duration.ofSeconds(10))
                .until(() -> Pattern.compile("<code>h1:[A-Za-z0-9+/]")
                                .matcher(body(fixture.mirror().get(view)))
                                .results()
                                .count()
                        == 3);

        HttpResponse<byte[]> response = fixture.mirror().get(view);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).contains("text/html; charset=utf-8");
        String html = body(response);
        String v100 = element(html, "section", "<h2>1.0.0</h2>");
        String v110 = element(html, "section", "<h2>1.1.0</h2>");
        assertThat(html.indexOf("<h2>1.1.0</h2>")).as("newest first").isLessThan(html.indexOf("<h2>1.0.0</h2>"));
        assertThat(v100)
                .contains("darwin_arm64")
                .doesNotContain("windows_amd64")
                .contains("zh:" + old.sha256("linux_amd64"))
                .contains("zh:" + old.sha256("darwin_arm64"))
                .contains("key " + fixture.origin().signingKey().signingKeyId())
                .contains("Verified ");
        assertThat(element(v110, "tr", "windows_amd64"))
                .contains("not cached")
                .contains("zh:" + latest.sha256("windows_amd64"))
                .doesNotContain("<code>h1:");
        assertThat(element(v110, "tr", "linux_amd64"))
                .contains("<span class=\"ok\">cached</span>")
                .contains("<code>h1:");
        assertThat(v110).doesNotContain("darwin_arm64");

        String front = element(page(), "tr", "example.test/acme/detailed");
        assertThat(front)
                .contains("href=\"" + view + "\"")
                .containsPattern("<b>1\\.1\\.0</b> <span class=\"muted small\">linux_amd64</span>")
                .containsPattern("<b>1\\.0\\.0</b> <span class=\"muted small\">darwin_arm64, linux_amd64</span>");
    }

    @Test
    void aProviderViewOfNothingCachedIsA404AndAMalformedOneA400BothInJson() throws Exception {
        HttpResponse<byte[]> unknown = fixture.mirror().get("/status/providers/example.test/acme/unknown");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(body(unknown))
                .startsWith("{\"errors\":[")
                .contains("example.test/acme/unknown")
                .contains("origin example.test");

        HttpResponse<byte[]> malformed = fixture.mirror().get("/status/providers/example.test/Acme/x");
        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(body(malformed)).startsWith("{\"errors\":[").contains("namespace 'Acme'");
    }

    @Test
    void theGeneratedCaIsOfferedAtCaPemWithTrustInstructionsOnThePage() throws Exception {
        HttpResponse<byte[]> ca = fixture.mirror().get("/ca.pem");

        assertThat(ca.statusCode()).isEqualTo(200);
        assertThat(ca.headers().firstValue("content-type")).contains("application/x-pem-file");
        assertThat(ca.body())
                .isEqualTo(Files.readAllBytes(
                        fixture.mirror().mirror.generatedCaFile().orElseThrow()));
        String trust = element(page(), "section", "Trust this mirror");
        assertThat(trust)
                .contains("href=\"/ca.pem\"")
                .contains("update-ca-certificates")
                .contains("security add-trusted-cert")
                .contains("SSL_CERT_FILE")
                .containsPattern("id=\"ca-fingerprint\"[^>]*>([0-9A-F]{2}:){31}[0-9A-F]{2}<");
    }

    @Test
    void theRegistryUrlOfEachRoutedHostIsShownAndItsDiscoveryDocumentNamesThatHostsServices() throws Exception {
        String list = element(page(), "ul", "/registry/");
        String authority = "localhost:" + fixture.mirror().mirror.port();

        assertThat(list)
                .contains("https://" + authority + "/registry/registry.terraform.io<")
                .contains("https://" + authority + "/registry/registry.opentofu.org<")
                .contains("https://" + authority + "/registry/" + MirrorFixture.HOST + "<");
        HttpResponse<byte[]> discovery =
                fixture.mirror().get("/registry/" + MirrorFixture.HOST + "/.well-known/terraform.json");
        assertThat(discovery.statusCode()).isEqualTo(200);
        assertThat(body(discovery))
                .contains(
                        "\"modules.v1\":\"https://" + authority + "/registry/" + MirrorFixture.HOST + "/modules.v1/\"");
    }

    @Test
    void theLastHourChartDrawsRequestsHitRateAndBytesServed() throws Exception {
        fixture.origin().publish("acme", "charted", "1.0.0", "linux_amd64");
        fetchArchive("charted", "1.0.0", "linux_amd64");
        fetchArchive("charted", "1.0.0", "linux_amd64");

        String charts = element(page(), "section", "<h2>Last hour</h2>");

        assertThat(element(charts, "svg", "chart-requests"))
                .contains("<rect")
                .containsPattern("<title>\\d\\d:\\d\\d UTC: \\d+ requests</title>");
        assertThat(element(charts, "svg", "chart-hit-rate"))
                .contains("<rect")
                .containsPattern("UTC: \\d+% hits</title>");
        assertThat(element(charts, "svg", "chart-bytes")).contains("<rect");
        assertThat(charts).doesNotContain("<script");
    }
}
