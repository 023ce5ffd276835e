package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.cli.InventoryCommand;
import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.ModuleArchives;
import io.providermirror.testkit.SettableClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The usage inventory on a running mirror: provider and module archives downloaded through it are counted (a HEAD
 * is not), the operator API answers the inventory filtered by address, version constraint and client, the status
 * page lists the most requested, and once the mirror stopped the {@code inventory} command prints the same as CSV
 * and JSON from the shard it wrote.
 */
final class InventoryTest {

    private static final String OPERATOR_TOKEN = "operator-secret-token";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant START = Instant.parse("2026-03-01T10:00:00Z");

    @TempDir
    Path tmp;

    private FakeOrigin origin;
    private FakeModuleRegistry registry;
    private MirrorFixture mirror;
    private final SettableClock clock = new SettableClock(START);
    private final ch.qos.logback.classic.Level rootLevel = root().getLevel();

    private static ch.qos.logback.classic.Logger root() {
        return (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    @BeforeEach
    void start() {
        origin = FakeOrigin.start(tmp.resolve("origin"));
        registry = FakeModuleRegistry.of(origin);
    }

    @AfterEach
    void stop() {
        root().setLevel(rootLevel);
        if (mirror != null) {
            mirror.close();
        }
        origin.close();
    }

    @Test
    void downloadsAreCountedAndTheApiTheStatusPageAndTheCommandAnswerFromThem() throws Exception {
        origin.publish("acme", "old", "1.0.0", "linux_amd64");
        origin.publish("acme", "old", "2.0.0", "linux_amd64");
        registry.serveArchive("/archives/a-1.tar.gz", ModuleArchives.tarGz(Map.of("main.tf", "# a\n")));
        registry.publish("corp", "a", "aws", "1.1.0", "/archives/a-1.tar.gz");
        MirrorFixture.Builder builder = MirrorFixture.builder(tmp.resolve("cache"), origin)
                .set("operator.tokens", List.of(MirrorAuth.hash(OPERATOR_TOKEN)))
                .clock(clock);
        mirror = builder.start();

        String v1 = mirror.providerPath("acme", "old") + "terraform-provider-old_1.0.0_linux_amd64.zip";
        String v2 = mirror.providerPath("acme", "old") + "terraform-provider-old_2.0.0_linux_amd64.zip";
        assertThat(mirror.get(v1).statusCode()).isEqualTo(200);
        clock.advance(Duration.ofMinutes(10));
        assertThat(mirror.get(v1).statusCode()).isEqualTo(200);
        assertThat(mirror.head(v1).statusCode()).as("a HEAD is no download").isEqualTo(200);
        assertThat(mirror.get(v2).statusCode()).isEqualTo(200);
        String moduleBase = "/registry/" + MirrorFixture.HOST + "/modules.v1/corp/a/aws/1.1.0/";
        assertThat(mirror.get(moduleBase + "download").statusCode()).isEqualTo(204);
        assertThat(mirror.get(moduleBase + "module.tar.gz").statusCode()).isEqualTo(200);

        JsonNode all = inventory("");
        assertThat(all.path("items")).hasSize(3);
        JsonNode old1 = item(all, "acme/old", "1.0.0");
        assertThat(old1.path("kind").asText()).isEqualTo("provider");
        assertThat(old1.path("address").asText()).isEqualTo(MirrorFixture.HOST + "/acme/old");
        assertThat(old1.path("platform").asText()).isEqualTo("linux_amd64");
        assertThat(old1.path("requests").asLong()).isEqualTo(2);
        assertThat(old1.path("firstRequested").asText()).isEqualTo(START.toString());
        assertThat(old1.path("lastRequested").asText())
                .isEqualTo(START.plus(Duration.ofMinutes(10)).toString());
        assertThat(old1.path("clients").path("anonymous").asLong()).isEqualTo(2);
        JsonNode module = item(all, "corp/a/aws", "1.1.0");
        assertThat(module.path("kind").asText()).isEqualTo("module");
        assertThat(module.path("requests").asLong()).isEqualTo(1);
        assertThat(module.has("platform")).isFalse();

        JsonNode old = inventory("?address=" + MirrorFixture.HOST + "/acme/old&version=" + encode("< 2.0"));
        assertThat(old.path("items")).hasSize(1);
        assertThat(old.path("items").get(0).path("version").asText()).isEqualTo("1.0.0");
        assertThat(inventory("?client=anonymous").path("items")).hasSize(3);
        assertThat(inventory("?client=someone-else").path("items")).isEmpty();

        HttpResponse<byte[]> bad = get("/api/v1/inventory?version=" + encode("<< 2"), OPERATOR_TOKEN);
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(MirrorFixture.error(bad)).contains("malformed inventory query: version:");
        assertThat(get("/api/v1/inventory", null).statusCode()).isEqualTo(401);
        HttpResponse<byte[]> posted = mirror.send(HttpRequest.newBuilder(mirror.url("/api/v1/inventory"))
                .header("Authorization", "Bearer " + OPERATOR_TOKEN)
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
        assertThat(posted.statusCode()).isEqualTo(405);
        assertThat(posted.headers().firstValue("Allow")).contains("GET");

        String page = new String(mirror.get("/").body(), StandardCharsets.UTF_8);
        String table = page.substring(page.indexOf("<table id=\"inventory\""));
        assertThat(table.indexOf("1.0.0")).as("the most requested first").isLessThan(table.indexOf("2.0.0"));
        assertThat(table).contains(MirrorFixture.HOST + "/corp/a/aws");

        mirror.close();
        mirror = null;
        Path config = Files.writeString(tmp.resolve("mirror.yaml"), builder.yaml());

        ByteArrayOutputStream csv = new ByteArrayOutputStream();
        assertThat(command(csv, "--config", config.toString(), "--address", MirrorFixture.HOST + "/acme"))
                .isZero();
        assertThat(csv.toString(StandardCharsets.UTF_8).lines().toList())
                .containsExactly(
                        "kind,address,version,platform,first_requested,last_requested,requests,clients",
                        "provider," + MirrorFixture.HOST + "/acme/old,2.0.0,linux_amd64,"
                                + START.plus(Duration.ofMinutes(10)) + "," + START.plus(Duration.ofMinutes(10))
                                + ",1,anonymous=1",
                        "provider," + MirrorFixture.HOST + "/acme/old,1.0.0,linux_amd64," + START + ","
                                + START.plus(Duration.ofMinutes(10)) + ",2,anonymous=2");

        ByteArrayOutputStream json = new ByteArrayOutputStream();
        assertThat(command(json, "--config", config.toString(), "--format", "json", "--version", ">= 1.1"))
                .isZero();
        JsonNode printed = JSON.readTree(json.toByteArray());
        assertThat(printed.path("items")).hasSize(2);
        assertThat(item(printed, "corp/a/aws", "1.1.0").path("requests").asLong())
                .isEqualTo(1);
        assertThat(item(printed, "acme/old", "2.0.0").path("requests").asLong()).isEqualTo(1);

        ByteArrayOutputStream refused = new ByteArrayOutputStream();
        assertThat(command(refused, "--config", config.toString(), "--version", "<< 1"))
                .isEqualTo(2);
    }

    private JsonNode inventory(String query) throws Exception {
        HttpResponse<byte[]> response = get("/api/v1/inventory" + query, OPERATOR_TOKEN);
        assertThat(response.statusCode())
                .as(new String(response.body(), StandardCharsets.UTF_8))
                .isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private HttpResponse<byte[]> get(String path, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(mirror.url(path)).timeout(Duration.ofSeconds(90));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return mirror.send(request.build());
    }

    private static JsonNode item(JsonNode answer, String addressEnd, String version) {
        for (JsonNode item : answer.path("items")) {
            if (item.path("address").asText().endsWith("/" + addressEnd)
                    && item.path("version").asText().equals(version)) {
                return item;
            }
        }
        throw new AssertionError("no " + addressEnd + " " + version + " in " + answer);
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private static int command(ByteArrayOutputStream out, String... args) {
        PrintStream stream = new PrintStream(out, true, StandardCharsets.UTF_8);
        return new picocli.CommandLine(new InventoryCommand(stream, System.err, Map.of())).execute(args);
    }
}
