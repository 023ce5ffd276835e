package io.providermirror.server.scenario;

import static io.providermirror.server.scenario.MirrorFixture.error;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.ModuleArchives;
import io.providermirror.testkit.PrometheusScrape;
import io.providermirror.testkit.SettableClock;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Named clients on a running mirror: a client's requests are logged, counted and seen under its name (never its
 * token), a request beyond its scope is refused with a 403 naming what it may reach on every face, and the operator
 * API and the status page list the configured names with when each was last seen.
 */
final class NamedClientsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CI = "ci-main-secret-token";
    private static final String CORP = "team-corp-secret-token";
    private static final String ELSEWHERE = "elsewhere-secret-token";
    private static final String IDLE = "idle-secret-token";
    private static final String FROM_FILE = "file-secret-token";
    private static final String PLAIN = "plain-secret-token";
    private static final String OPERATOR = "operator-secret-token";
    private static final SettableClock CLOCK = new SettableClock();

    @RegisterExtension
    static final MirrorExtension fixture = MirrorExtension.with((builder, directory) -> builder.set(
                    "auth.clients",
                    List.of(
                            client("ci-main", CI, List.of(), List.of("acme")),
                            client("team-corp", CORP, List.of(MirrorFixture.HOST), List.of("corp")),
                            client("elsewhere", ELSEWHERE, List.of("registry.terraform.io"), List.of()),
                            client("idle", IDLE, List.of(), List.of())))
            .set("auth.tokens", List.of(MirrorAuth.hash(PLAIN)))
            .set(
                    "auth.tokensFile",
                    Files.writeString(
                                    directory.resolve("tokens"),
                                    "# a client of the file\nfrom-file " + MirrorAuth.hash(FROM_FILE)
                                            + " namespaces=corp,acme\n")
                            .toString())
            .set("operator.tokens", List.of(MirrorAuth.hash(OPERATOR)))
            .set("cache.indexTtl", "15m")
            .withManagement()
            .clock(CLOCK));

    private static final ListAppender<ILoggingEvent> LINES = new ListAppender<>();
    private static FakeModuleRegistry modules;

    private static Map<String, Object> client(String name, String token, List<String> hosts, List<String> namespaces) {
        Map<String, Object> client = new LinkedHashMap<>();
        client.put("name", name);
        client.put("token", MirrorAuth.hash(token));
        client.put("hosts", hosts);
        client.put("namespaces", namespaces);
        return client;
    }

    @BeforeAll
    static void start() {
        fixture.origin().publish("acme", "named", "1.0.0", "linux_amd64");
        fixture.origin().publish("other", "beyond", "1.0.0", "linux_amd64");
        modules = FakeModuleRegistry.withFullApi(fixture.origin());
        modules.serveArchive("/archives/net.tar.gz", ModuleArchives.tarGz(Map.of("main.tf", "# net\n")));
        modules.publish("corp", "net", "aws", "1.0.0", "/archives/net.tar.gz");
        Logger access = (Logger) LoggerFactory.getLogger("io.providermirror.access");
        LINES.start();
        access.addAppender(LINES);
    }

    @AfterAll
    static void stop() {
        ((Logger) LoggerFactory.getLogger("io.providermirror.access")).detachAppender(LINES);
    }

    private static HttpResponse<byte[]> get(String path, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(fixture.mirror().url(path));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return fixture.mirror().send(request.build());
    }

    private static Map<String, Object> fields(ILoggingEvent event) {
        return event.getKeyValuePairs().stream().collect(Collectors.toMap(kv -> kv.key, kv -> kv.value));
    }

    private static List<ILoggingEvent> linesFor(String path) {
        return LINES.list.stream()
                .filter(e -> path.equals(fields(e).get("path")))
                .toList();
    }

    /** The access log's lines for {@code path}, whatever query it was asked with. */
    private static List<ILoggingEvent> archiveLines(String path) {
        return LINES.list.stream()
                .filter(e -> String.valueOf(fields(e).get("path")).startsWith(path))
                .toList();
    }

    private static PrometheusScrape scrape() throws Exception {
        HttpResponse<String> response = fixture.mirror().management("/metrics");
        assertThat(response.statusCode()).isEqualTo(200);
        return PrometheusScrape.parse(response.body());
    }

    @Test
    void aNamedClientsRequestsAreLoggedAndCountedByItsNameNeverByItsToken() throws Exception {
        String path = fixture.mirror().providerPath("acme", "named") + "index.json";
        assertThat(get(path, CI).statusCode()).isEqualTo(200);

        await().atMost(Duration.ofSeconds(30)).until(() -> linesFor(path).size() == 1);
        ILoggingEvent line = linesFor(path).get(0);
        assertThat(fields(line)).containsEntry("clientName", "ci-main").containsEntry("status", 200);
        assertThat(line.getFormattedMessage()).startsWith("127.0.0.1 ci-main \"GET " + path + "\" 200 ");
        String everything = line.getFormattedMessage() + fields(line);
        assertThat(everything)
                .doesNotContain(CI)
                .doesNotContain(MirrorAuth.hash(CI).substring(7, 20));

        await().atMost(Duration.ofSeconds(30))
                .until(() -> scrape().value(
                                        "mirror_http_requests_seconds_count",
                                        "route",
                                        "index",
                                        "status",
                                        "200",
                                        "client",
                                        "ci-main")
                        >= 1);
        String plainName = "token-" + MirrorAuth.hash(PLAIN).substring(7, 15);
        assertThat(get(path, PLAIN).statusCode()).isEqualTo(200);
        assertThat(get(path, null).statusCode()).isEqualTo(401);
        await().atMost(Duration.ofSeconds(30)).until(() -> linesFor(path).size() == 3);
        assertThat(linesFor(path).stream().map(e -> fields(e).get("clientName")))
                .containsExactly("ci-main", plainName, "anonymous");
        PrometheusScrape metrics = scrape();
        assertThat(metrics.value("mirror_http_requests_seconds_count", "route", "index", "client", plainName))
                .isGreaterThanOrEqualTo(1);
        assertThat(metrics.value("mirror_http_requests_seconds_count", "status", "401", "client", "anonymous"))
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    void aRequestBeyondTheClientsScopeIsRefusedWith403NamingWhatItMayReachOnEveryFace() throws Exception {
        String host = MirrorFixture.HOST;
        List<String> beyondCi = List.of(
                fixture.mirror().providerPath("other", "beyond") + "index.json",
                fixture.mirror().providerPath("other", "beyond") + "1.0.0.json",
                fixture.mirror().providerPath("other", "beyond") + "terraform-provider-beyond_1.0.0_linux_amd64.zip",
                "/registry/" + host + "/providers.v1/other/beyond/versions",
                "/registry/" + host + "/providers.v1/other/beyond/1.0.0/download/linux/amd64",
                "/registry/" + host + "/providers.v1/other/beyond/1.0.0/download/linux/amd64/SHA256SUMS",
                "/registry/" + host + "/modules.v1/corp/net/aws/versions",
                "/registry/" + host + "/modules.v1/corp/net/aws/1.0.0/download",
                "/registry/" + host + "/modules.v1/corp/net/aws/1.0.0/module.tar.gz",
                "/registry/" + host + "/modules.v1/corp",
                "/registry/" + host + "/modules.v1/corp/net/aws",
                "/registry/" + host + "/modules.v1/",
                "/registry/" + host + "/modules.v1/search?q=net",
                "/registry/" + host + "/modules.v1/search?q=net&namespace=corp",
                "/status.json",
                "/");
        for (String path : beyondCi) {
            HttpResponse<byte[]> refused = get(path, CI);
            assertThat(refused.statusCode()).as(path).isEqualTo(403);
            assertThat(error(refused))
                    .as(path)
                    .startsWith("the client 'ci-main' may reach hosts (any); namespaces acme; ");
        }
        HttpResponse<byte[]> discovery = get("/registry/" + host + "/.well-known/terraform.json", ELSEWHERE);
        assertThat(discovery.statusCode()).isEqualTo(403);
        assertThat(error(discovery))
                .startsWith("the client 'elsewhere' may reach hosts registry.terraform.io; namespaces (any); ");

        // Within the scope, every face answers.
        assertThat(get("/registry/" + host + "/.well-known/terraform.json", CI).statusCode())
                .isEqualTo(200);
        assertThat(get("/registry/" + host + "/providers.v1/acme/named/versions", CI)
                        .statusCode())
                .isEqualTo(200);
        assertThat(get("/registry/" + host + "/modules.v1/corp/net/aws/versions", CORP)
                        .statusCode())
                .isEqualTo(200);
        assertThat(get("/registry/" + host + "/modules.v1/search?q=net&namespace=corp", CORP)
                        .statusCode())
                .isEqualTo(200);
        assertThat(get("/registry/" + host + "/modules.v1/corp/net/aws/versions", FROM_FILE)
                        .statusCode())
                .isEqualTo(200);
        assertThat(get(fixture.mirror().providerPath("acme", "named") + "index.json", CORP)
                        .statusCode())
                .isEqualTo(403);
    }

    /** The signed archive URL of acme/named 1.0.0 for linux_amd64 that the version document gives {@code token}'s client. */
    private static String signedArchiveUrl(String token) throws Exception {
        String base = fixture.mirror().providerPath("acme", "named");
        HttpResponse<byte[]> document = get(base + "1.0.0.json", token);
        assertThat(document.statusCode()).isEqualTo(200);
        return URI.create(base + "1.0.0.json")
                .resolve(JSON.readTree(document.body())
                        .get("archives")
                        .get("linux_amd64")
                        .get("url")
                        .asText())
                .toString();
    }

    @Test
    void theSignedArchiveUrlsAClientIsGivenOpenWhatItMayReach() throws Exception {
        String url = signedArchiveUrl(CI);

        assertThat(get(url, null).statusCode()).isEqualTo(200);
    }

    @Test
    void anArchiveFetchedWithoutATokenThroughASignedUrlIsTheClientsTheUrlWasIssuedTo() throws Exception {
        String url = signedArchiveUrl(CI);
        assertThat(url).contains("client=ci-main");

        // The CLI sends no token for archives: the name comes from the URL, which the signature covers.
        assertThat(get(url, null).statusCode()).isEqualTo(200);
        String archivePath = URI.create(url).getRawPath();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !archiveLines(archivePath).isEmpty());
        assertThat(archiveLines(archivePath))
                .allSatisfy(line -> assertThat(fields(line)).containsEntry("clientName", "ci-main"));

        HttpResponse<byte[]> renamed = get(url.replace("client=ci-main", "client=idle"), null);
        assertThat(renamed.statusCode()).as("another name than the one signed").isEqualTo(403);
        assertThat(error(renamed)).contains("signature does not match");
        assertThat(get(url.replace("client=ci-main&", ""), null).statusCode())
                .as("the name left out")
                .isEqualTo(403);
    }

    @Test
    void theOperatorApiListsEveryConfiguredClientWithItsScopeAndWhenItWasLastSeen() throws Exception {
        assertThat(get(fixture.mirror().providerPath("acme", "named") + "index.json", CI)
                        .statusCode())
                .isEqualTo(200);

        HttpResponse<byte[]> answer = get("/api/v1/clients", OPERATOR);

        assertThat(answer.statusCode()).isEqualTo(200);
        JsonNode clients = JSON.readTree(answer.body()).get("clients");
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        clients.forEach(client -> byName.put(client.get("name").asText(), client));
        String plainName = "token-" + MirrorAuth.hash(PLAIN).substring(7, 15);
        assertThat(byName).containsOnlyKeys(plainName, "ci-main", "team-corp", "elsewhere", "idle", "from-file");
        assertThat(byName.get("ci-main").get("lastSeen").asText())
                .isEqualTo(CLOCK.instant().toString());
        assertThat(byName.get("idle").get("lastSeen").isNull()).isTrue();
        assertThat(byName.get("team-corp").get("scope").toString())
                .isEqualTo("{\"hosts\":[\"" + MirrorFixture.HOST + "\"],\"namespaces\":[\"corp\"]}");
        assertThat(byName.get("from-file").get("scope").toString())
                .isEqualTo("{\"hosts\":[],\"namespaces\":[\"corp\",\"acme\"]}");
        assertThat(new String(answer.body(), StandardCharsets.UTF_8))
                .doesNotContain("sha256")
                .doesNotContain(CI);

        assertThat(get("/api/v1/clients", null).statusCode()).isEqualTo(401);
        assertThat(get("/api/v1/clients", CI).statusCode()).isEqualTo(403);
        HttpResponse<byte[]> posted = fixture.mirror()
                .send(HttpRequest.newBuilder(fixture.mirror().url("/api/v1/clients"))
                        .header("Authorization", "Bearer " + OPERATOR)
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build());
        assertThat(posted.statusCode()).isEqualTo(405);
        assertThat(posted.headers().firstValue("allow")).contains("GET");
    }

    @Test
    void theStatusPageShowsTheConfiguredNamesAndWhenEachWasLastSeen() throws Exception {
        assertThat(get(fixture.mirror().providerPath("acme", "named") + "index.json", CI)
                        .statusCode())
                .isEqualTo(200);

        HttpResponse<byte[]> page = fixture.mirror()
                .send(HttpRequest.newBuilder(fixture.mirror().url("/"))
                        .header("Authorization", "Bearer " + PLAIN)
                        .header("Accept", "text/html")
                        .build());

        assertThat(page.statusCode()).isEqualTo(200);
        String html = new String(page.body(), StandardCharsets.UTF_8);
        assertThat(html).contains("<table id=\"clients\">");
        String table = html.substring(html.indexOf("<table id=\"clients\">"));
        table = table.substring(0, table.indexOf("</table>"));
        assertThat(table)
                .contains("<tr><td>ci-main</td><td>hosts (any); namespaces acme</td><td><span title=")
                .contains("just now")
                .contains("<tr><td>idle</td><td>every host and namespace</td><td>&ndash;</td></tr>")
                .doesNotContain("sha256");
    }

    @Test
    void onlyAClientWithoutAScopeSignsInToTheStatusPage() throws Exception {
        HttpResponse<byte[]> scoped = login(CI);
        assertThat(scoped.statusCode()).isEqualTo(401);
        assertThat(scoped.headers().firstValue("set-cookie")).isEmpty();
        assertThat(new String(scoped.body(), StandardCharsets.UTF_8))
                .contains("That token is not accepted by this mirror for its status page.");
        HttpResponse<byte[]> unlimited = login(IDLE);
        assertThat(unlimited.statusCode()).isEqualTo(303);
        String cookie = unlimited.headers().firstValue("set-cookie").orElseThrow();
        HttpResponse<byte[]> page = fixture.mirror()
                .send(HttpRequest.newBuilder(fixture.mirror().url("/status.json"))
                        .header("Cookie", cookie.substring(0, cookie.indexOf(';')))
                        .build());
        assertThat(page.statusCode()).isEqualTo(200);
        String scopedCookie = "provider_mirror_token=" + CI;
        assertThat(fixture.mirror()
                        .send(HttpRequest.newBuilder(fixture.mirror().url("/status.json"))
                                .header("Cookie", scopedCookie)
                                .build())
                        .statusCode())
                .isEqualTo(401);
    }

    private static HttpResponse<byte[]> login(String token) throws Exception {
        return fixture.mirror()
                .send(HttpRequest.newBuilder(fixture.mirror().url("/login"))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString("token=" + token))
                        .build());
    }
}
