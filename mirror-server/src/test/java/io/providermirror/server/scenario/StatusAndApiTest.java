package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.SettableClock;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page and the operator API show one report: the page's clients, most requested items and policy rules
 * are those {@code GET /api/v1/clients}, {@code GET /api/v1/inventory} and {@code GET /api/v1/status} answer; and
 * when a named client was last seen outlives a restart of a mirror on its own cache directory.
 */
final class StatusAndApiTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String OPERATOR = "operator-secret-token";
    private static final String CI = "ci-main-secret-token";
    private static final String VIEWER = "viewer-secret-token";
    private static final Instant START = Instant.parse("2026-03-01T10:00:00Z");
    /** How the page writes an exact time (in the tooltip of "... ago"). */
    private static final DateTimeFormatter PAGE_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT).withZone(ZoneOffset.UTC);

    @TempDir
    Path tmp;

    private final SettableClock clock = new SettableClock(START);
    private FakeOrigin origin;

    /** The origin with one provider, for a test's mirrors. */
    @BeforeEach
    void origin() {
        origin = FakeOrigin.start(tmp.resolve("origin"));
        origin.publish("acme", "shared", "1.0.0", "linux_amd64");
    }

    @AfterEach
    void closeOrigin() {
        origin.close();
    }

    private MirrorFixture.Builder builder() {
        return MirrorFixture.builder(tmp.resolve("cache"), origin)
                .set("auth.clients", List.of(client("ci-main", CI), client("viewer", VIEWER)))
                .set("operator.tokens", List.of(MirrorAuth.hash(OPERATOR)))
                .set("policy.deny", List.of(Map.of("provider", MirrorFixture.HOST + "/acme/banned", "reason", "no")))
                .clock(clock);
    }

    private static Map<String, Object> client(String name, String token) {
        Map<String, Object> client = new LinkedHashMap<>();
        client.put("name", name);
        client.put("token", MirrorAuth.hash(token));
        return client;
    }

    @Test
    void thePageShowsTheClientsInventoryAndPolicyTheApiAnswers() throws Exception {
        try (MirrorFixture mirror = builder().start()) {
            thePageShowsWhatTheApiAnswers(mirror);
        }
    }

    private void thePageShowsWhatTheApiAnswers(MirrorFixture mirror) throws Exception {
        String archive = mirror.providerPath("acme", "shared") + "terraform-provider-shared_1.0.0_linux_amd64.zip";
        clock.advance(Duration.ofMinutes(7));
        assertThat(get(mirror, archive, CI).statusCode()).isEqualTo(200);
        clock.advance(Duration.ofMinutes(30));

        JsonNode ci = byName(api(mirror, "/api/v1/clients").path("clients")).get("ci-main");
        Instant seen = Instant.parse(ci.path("lastSeen").asText());
        assertThat(seen).isEqualTo(START.plus(Duration.ofMinutes(7)));
        JsonNode item = api(mirror, "/api/v1/inventory").path("items").get(0);
        assertThat(item.path("clients").path("ci-main").asLong()).isEqualTo(1);
        JsonNode status = api(mirror, "/api/v1/status");
        assertThat(status.path("clients"))
                .isEqualTo(api(mirror, "/api/v1/clients").path("clients"));
        assertThat(status.path("mostRequested")).containsExactly(item);
        assertThat(status.path("policy").path("rules").get(0).path("id").asText())
                .isEqualTo("policy.deny[0]");

        HttpResponse<byte[]> page = mirror.send(HttpRequest.newBuilder(mirror.url("/"))
                .header("Authorization", "Bearer " + VIEWER)
                .header("Accept", "text/html")
                .build());
        assertThat(page.statusCode()).isEqualTo(200);
        String html = new String(page.body(), StandardCharsets.UTF_8);
        assertThat(table(html, "clients"))
                .contains("<tr><td>ci-main</td><td>every host and namespace</td><td><span title=\""
                        + PAGE_TIME.format(seen) + "\">30 min ago</span></td></tr>");
        assertThat(table(html, "inventory"))
                .contains("<tr><td>" + item.path("address").asText() + "</td><td>1.0.0</td><td>linux_amd64</td><td>"
                        + item.path("requests").asLong() + "</td><td>1</td><td><span title=\""
                        + PAGE_TIME.format(
                                Instant.parse(item.path("lastRequested").asText())) + "\">");
        assertThat(table(html, "policy")).contains("<code>policy.deny[0]</code>");
    }

    @Test
    void whenAClientWasLastSeenOutlivesARestart() throws Exception {
        Instant seen = clock.instant();
        try (MirrorFixture mirror = builder().start()) {
            assertThat(get(mirror, mirror.providerPath("acme", "shared") + "index.json", CI)
                            .statusCode())
                    .isEqualTo(200);
        }
        clock.advance(Duration.ofHours(2));

        try (MirrorFixture again = builder().start()) {
            Map<String, JsonNode> clients = byName(api(again, "/api/v1/clients").path("clients"));
            assertThat(clients.get("ci-main").path("lastSeen").asText()).isEqualTo(seen.toString());
            assertThat(clients.get("viewer").path("lastSeen").isNull()).isTrue();
        }
    }

    private static HttpResponse<byte[]> get(MirrorFixture mirror, String path, String token) throws Exception {
        return mirror.send(HttpRequest.newBuilder(mirror.url(path))
                .header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(90))
                .build());
    }

    private static JsonNode api(MirrorFixture mirror, String path) throws Exception {
        HttpResponse<byte[]> answer = get(mirror, path, OPERATOR);
        assertThat(answer.statusCode()).as(path).isEqualTo(200);
        return JSON.readTree(answer.body());
    }

    private static Map<String, JsonNode> byName(JsonNode clients) {
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        clients.forEach(client -> byName.put(client.path("name").asText(), client));
        return byName;
    }

    private static String table(String html, String id) {
        int start = html.indexOf("<table id=\"" + id + "\">");
        assertThat(start).as("the page's table " + id).isNotNegative();
        return html.substring(start, html.indexOf("</table>", start));
    }
}
