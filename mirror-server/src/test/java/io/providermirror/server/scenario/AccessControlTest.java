package io.providermirror.server.scenario;

import static io.providermirror.server.scenario.MirrorFixture.error;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.SettableClock;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bearer tokens for the JSON endpoints (hashed in the configuration), and signed, expiring archive URLs for
 * the downloads the CLI makes without credentials.
 */
final class AccessControlTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "team-a-token";

    private static final SettableClock CLOCK = new SettableClock();

    @RegisterExtension
    static final MirrorExtension fixture = MirrorExtension.with((builder, directory) -> builder.set(
                    "auth.tokens", List.of(MirrorAuth.hash(TOKEN)))
            .set(
                    "auth.tokensFile",
                    Files.writeString(
                                    directory.resolve("tokens"), "# team b\n" + MirrorAuth.hash("team-b-token") + "\n")
                            .toString())
            .set("management.host", "127.0.0.1")
            .set("management.port", 0)
            .clock(CLOCK));

    private static FakeOrigin.Release release;

    @BeforeAll
    static void start() {
        release = fixture.origin()
                .publish("acme", "guarded", "1.0.0", FakeOrigin.Tamper.NONE, 5_000, "linux_amd64", "darwin_arm64");
    }

    private static HttpResponse<byte[]> get(String path, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(fixture.mirror().url(path));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return fixture.mirror().send(request.build());
    }

    /** The archive URL the version document gives for {@code platform}, as the CLI would resolve it. */
    private static String archiveUrl(String platform) throws Exception {
        HttpResponse<byte[]> document = get(fixture.mirror().providerPath("acme", "guarded") + "1.0.0.json", TOKEN);
        assertThat(document.statusCode()).isEqualTo(200);
        JsonNode archives = JSON.readTree(document.body()).get("archives");
        return URI.create(fixture.mirror().providerPath("acme", "guarded") + "1.0.0.json")
                .resolve(archives.get(platform).get("url").asText())
                .toString();
    }

    @Test
    void theJsonEndpointsWantAConfiguredToken() throws Exception {
        for (String path : List.of("index.json", "1.0.0.json")) {
            HttpResponse<byte[]> none = get(fixture.mirror().providerPath("acme", "guarded") + path, null);
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("www-authenticate")).contains("Bearer realm=\"provider-mirror\"");
            assertThat(error(none))
                    .contains(
                            "credentials \"localhost:" + fixture.mirror().mirror.port() + "\" { token = \"...\" }");
            assertThat(get(fixture.mirror().providerPath("acme", "guarded") + path, "guessed")
                            .statusCode())
                    .isEqualTo(401);
            assertThat(get(fixture.mirror().providerPath("acme", "guarded") + path, TOKEN)
                            .statusCode())
                    .isEqualTo(200);
            assertThat(get(fixture.mirror().providerPath("acme", "guarded") + path, "team-b-token")
                            .statusCode())
                    .as("a token from the tokens file")
                    .isEqualTo(200);
        }
        assertThat(fixture.origin().requestsMatching("/v1/providers/acme/guarded/versions"))
                .as("nothing before a token")
                .isEqualTo(1);
    }

    @Test
    void versionDocumentsHandOutSignedArchiveUrlsThatWorkWithoutCredentials() throws Exception {
        String url = archiveUrl("linux_amd64");
        assertThat(url)
                .matches(
                        ".*terraform-provider-guarded_1\\.0\\.0_linux_amd64\\.zip\\?expires=[0-9]+(&client=[a-z0-9._-]+)?&signature=[A-Za-z0-9_-]+");
        HttpResponse<byte[]> archive = get(url, null);
        assertThat(archive.statusCode()).isEqualTo(200);
        assertThat(archive.body()).isEqualTo(release.archives().get("linux_amd64"));
        assertThat(fixture.mirror()
                        .send(HttpRequest.newBuilder(fixture.mirror().url(url))
                                .method("HEAD", HttpRequest.BodyPublishers.noBody())
                                .build())
                        .statusCode())
                .as("the CLI's HEAD too")
                .isEqualTo(200);
    }

    @Test
    void unsignedAlteredForeignAndExpiredArchiveUrlsAreRefused() throws Exception {
        String linux = archiveUrl("linux_amd64");
        String plain = linux.substring(0, linux.indexOf('?'));
        HttpResponse<byte[]> unsigned = get(plain, null);
        assertThat(unsigned.statusCode()).isEqualTo(403);
        assertThat(error(unsigned)).contains("archive URLs of this mirror are signed");

        String altered = linux.replaceFirst("expires=([0-9]+)", "expires=9$1");
        assertThat(get(altered, null).statusCode()).isEqualTo(403);
        assertThat(error(get(altered, null))).contains("signature does not match this archive");

        String darwin = archiveUrl("darwin_arm64");
        String foreign = plain + darwin.substring(darwin.indexOf('?'));
        assertThat(error(get(foreign, null)))
                .as("a URL signed for another archive")
                .contains("does not match");

        String fresh = archiveUrl("linux_amd64");
        CLOCK.advance(Duration.ofMinutes(11));
        HttpResponse<byte[]> expired = get(fresh, null);
        assertThat(expired.statusCode()).isEqualTo(403);
        assertThat(error(expired)).contains("expired").contains("valid for 10 minutes");

        assertThat(get(plain, TOKEN).statusCode())
                .as("a bearer token opens an archive too")
                .isEqualTo(200);
    }

    @Test
    void theProvidersV1FaceWantsATokenAndSignsTheUrlsItsDownloadDocumentsName() throws Exception {
        String base = "/registry/example.test/providers.v1/acme/guarded/";
        String download = base + "1.0.0/download/linux/amd64";
        for (String path : List.of(base + "versions", download)) {
            HttpResponse<byte[]> none = get(path, null);
            assertThat(none.statusCode()).as(path).isEqualTo(401);
            assertThat(error(none))
                    .as(path + ": through a host block the CLI sends the credentials of the host it routes")
                    .contains("credentials \"example.test\" { token = \"...\" }");
            assertThat(get(path, TOKEN).statusCode()).as(path).isEqualTo(200);
        }

        JsonNode document = JSON.readTree(get(download, TOKEN).body());
        URI at = URI.create(download);
        byte[] sums = null;
        for (String field : List.of("download_url", "shasums_url", "shasums_signature_url")) {
            String url = at.resolve(document.get(field).asText()).toString();
            assertThat(url)
                    .as(field + ": fetched by the CLI without credentials, so signed")
                    .matches(".*\\?expires=[0-9]+(&client=[a-z0-9._-]+)?&signature=[A-Za-z0-9_-]+");
            HttpResponse<byte[]> file = get(url, null);
            assertThat(file.statusCode()).as(field).isEqualTo(200);
            if (field.equals("download_url")) {
                assertThat(file.body()).isEqualTo(release.archives().get("linux_amd64"));
            }
            if (field.equals("shasums_url")) {
                sums = file.body();
            }
            String plain = url.substring(0, url.indexOf('?'));
            HttpResponse<byte[]> unsigned = get(plain, null);
            assertThat(unsigned.statusCode())
                    .as(field + " without its signed query")
                    .isEqualTo(403);
            assertThat(error(unsigned)).as(field).contains("signed");
            assertThat(get(plain, TOKEN).statusCode())
                    .as(field + " with a token")
                    .isEqualTo(200);
        }
        assertThat(new String(sums, java.nio.charset.StandardCharsets.UTF_8))
                .contains("terraform-provider-guarded_1.0.0_linux_amd64.zip");

        String darwinSums = at.resolve(JSON.readTree(
                                get(base + "1.0.0/download/darwin/arm64", TOKEN).body())
                        .get("shasums_url")
                        .asText())
                .toString();
        String linuxSums = at.resolve(document.get("shasums_url").asText()).toString();
        String foreign = linuxSums.substring(0, linuxSums.indexOf('?')) + darwinSums.substring(darwinSums.indexOf('?'));
        assertThat(get(foreign, null).statusCode())
                .as("a query signed for another package")
                .isEqualTo(403);
    }

    @Test
    void theStatusPageAndMetricsOnTheMainListenerWantATokenToo() throws Exception {
        get(archiveUrl("linux_amd64"), null);
        for (String path : List.of("/", "/metrics", "/status/providers/example.test/acme/guarded")) {
            HttpResponse<byte[]> none = get(path, null);
            assertThat(none.statusCode()).as(path).isEqualTo(401);
            assertThat(none.headers().firstValue("content-type")).as(path).contains("application/json");
            assertThat(error(none)).as(path).contains("wants a token").contains("Authorization: Bearer");
            assertThat(new String(none.body(), java.nio.charset.StandardCharsets.UTF_8))
                    .as(path)
                    .doesNotContain("guarded")
                    .doesNotContain("acme");
            assertThat(get(path, "guessed").statusCode()).as(path).isEqualTo(401);
            HttpResponse<byte[]> with = get(path, TOKEN);
            assertThat(with.statusCode()).as(path).isEqualTo(200);
        }
        assertThat(new String(get("/", TOKEN).body(), java.nio.charset.StandardCharsets.UTF_8))
                .as("the status page lists the cache")
                .contains("acme/guarded");
    }

    @Test
    void aBrowserSignsInWithAFormAndItsCookieOpensTheStatusPageButNoProtocolDocument() throws Exception {
        HttpResponse<byte[]> page = fixture.mirror()
                .send(HttpRequest.newBuilder(fixture.mirror().url("/"))
                        .header("Accept", "text/html,application/xhtml+xml")
                        .build());
        assertThat(page.statusCode()).isEqualTo(401);
        assertThat(page.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
        String form = new String(page.body(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(form).contains("<form method=\"post\" action=\"/login\">").doesNotContain("guarded");

        HttpResponse<byte[]> wrong = login("guessed");
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(new String(wrong.body(), java.nio.charset.StandardCharsets.UTF_8))
                .contains("not accepted");
        assertThat(wrong.headers().firstValue("set-cookie")).isEmpty();

        HttpResponse<byte[]> signedIn = login(TOKEN);
        assertThat(signedIn.statusCode()).isEqualTo(303);
        assertThat(signedIn.headers().firstValue("location")).hasValue("/");
        String cookie = signedIn.headers().firstValue("set-cookie").orElseThrow();
        assertThat(cookie).contains("HTTPOnly").contains("Secure").contains("SameSite=Strict");
        String sent = cookie.substring(0, cookie.indexOf(';'));

        for (String path : List.of("/", "/status.json", "/status/providers/example.test/acme/guarded")) {
            assertThat(fixture.mirror()
                            .send(HttpRequest.newBuilder(fixture.mirror().url(path))
                                    .header("Cookie", sent)
                                    .build())
                            .statusCode())
                    .as(path)
                    .isEqualTo(200);
        }
        for (String path : List.of("/metrics", fixture.mirror().providerPath("acme", "guarded") + "index.json")) {
            assertThat(fixture.mirror()
                            .send(HttpRequest.newBuilder(fixture.mirror().url(path))
                                    .header("Cookie", sent)
                                    .build())
                            .statusCode())
                    .as("the cookie opens the status page only: " + path)
                    .isEqualTo(401);
        }
        assertThat(fixture.mirror()
                        .send(HttpRequest.newBuilder(fixture.mirror().url("/"))
                                .header("Cookie", "provider_mirror_token=guessed")
                                .build())
                        .statusCode())
                .isEqualTo(401);
        assertThat(new String(get("/", TOKEN).body(), java.nio.charset.StandardCharsets.UTF_8))
                .as("the page shows the credentials blocks to add")
                .contains("credentials &quot;registry.terraform.io&quot;");
    }

    private static HttpResponse<byte[]> login(String token) throws Exception {
        return fixture.mirror()
                .send(HttpRequest.newBuilder(fixture.mirror().url("/login"))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "token=" + java.net.URLEncoder.encode(token, java.nio.charset.StandardCharsets.UTF_8)))
                        .build());
    }

    @Test
    void healthChecksTheGeneratedCaAndTheManagementListenerStayOpen() throws Exception {
        for (String path : List.of("/healthz", "/readyz", "/ca.pem")) {
            assertThat(get(path, null).statusCode()).as(path).isEqualTo(200);
        }
        HttpResponse<String> metrics = java.net.http.HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                                        + fixture.mirror()
                                                .mirror
                                                .managementPort()
                                                .orElseThrow() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.statusCode())
                .as("scrapers inside the cluster use the management listener")
                .isEqualTo(200);
    }

    @Test
    void theAccessLogDoesNotKeepSignatures() {
        Map<String, String> spellings = Map.of(
                "?expires=1&signature=abc", "?expires=1&signature=redacted",
                "?signature=abc&expires=1", "?signature=redacted&expires=1",
                "?a=1&signature=abc&b=2", "?signature=redacted",
                "?expires=1;signature=abc", "?expires=1;signature=redacted",
                "?expires=1&sig%6Eature=abc", "?expires=1&sig%6Eature=redacted",
                "?expires=1&%73ignature=abc=def", "?expires=1&%73ignature=redacted",
                "?expires=1&signatures=abc", "?expires=1",
                "?expires=1&bad%zzname=abc", "?expires=1");
        spellings.forEach((query, logged) -> assertThat(
                        io.providermirror.server.http.ExchangeLogs.redacted("/providers/a/b/c/x.zip" + query))
                .as(query)
                .isEqualTo("/providers/a/b/c/x.zip" + logged));
    }

    @Test
    void aPercentEncodedSignatureNameOpensTheArchiveAndIsStillNotLogged() throws Exception {
        String url = archiveUrl("linux_amd64");
        String signature = url.substring(url.indexOf("signature=") + "signature=".length());
        String encoded = url.replace("&signature=", ";sig%6Eature=");
        assertThat(get(encoded, null).statusCode())
                .as("the check reads the name decoded")
                .isEqualTo(200);
        assertThat(io.providermirror.server.http.ExchangeLogs.redacted(encoded)).doesNotContain(signature);
    }

    @Test
    void theConfigurationHoldsHashesNeverTokens() {
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).loadText("auth: {tokens: [my-plain-secret-token]}"))
                .hasMessageContaining("'auth.tokens': 'my-plain...' (expected: sha256:<64 hex digits>")
                .hasMessageNotContaining("my-plain-secret-token");
    }
}
