package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.http.OpenApiDescription;
import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.ModuleArchives;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator API's OpenAPI description against what a running mirror answers: for every described operation a
 * sample request (its path parameters' examples) with the operator token, without a token, with another token and
 * with another method; and for each operation of this version a request that succeeds. Every answer's status must
 * be one the operation describes, and every JSON answer must fit the schema described for that status; the status
 * document is the one the status page's {@code /status.json} answers.
 */
final class OperatorApiConformanceTest {

    private static final String TOKEN = "operator-conformance-token";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private final OpenApiDescription description = OpenApiDescription.load();
    private FakeOrigin origin;
    private FakeModuleRegistry registry;
    private MirrorFixture mirror;
    /** What the mirror answered that does not fit the description, each with the request. */
    private final List<String> problems = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        origin = FakeOrigin.start(tmp.resolve("origin"));
        registry = FakeModuleRegistry.of(origin);
        origin.publish("acme", "described", "1.0.0", "linux_amd64", "darwin_arm64");
        registry.serveArchive(
                "/archives/d.tar.gz", ModuleArchives.tarGz(Map.of("main.tf", "output \"v\" {\n  value = \"d\"\n}\n")));
        registry.publish("corp", "d", "aws", "1.0.0", "/archives/d.tar.gz");
    }

    @AfterEach
    void stop() {
        if (mirror != null) {
            mirror.close();
        }
        origin.close();
    }

    @Test
    void everyAnswerTheRunningMirrorGivesIsOneTheDescriptionDescribes() throws Exception {
        Path bundle = export();
        mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                .set("operator.tokens", List.of(MirrorAuth.hash(TOKEN)))
                .start();

        for (OpenApiDescription.Operation operation : description.operations()) {
            String sample = description.samplePath(operation);
            byte[] body = operation.method().equals("POST") ? "not a bundle".getBytes(StandardCharsets.UTF_8) : null;
            check(operation, send(operation.method(), sample, TOKEN, body), null);
            HttpResponse<byte[]> none = check(operation, send(operation.method(), sample, null, body), 401);
            assertThat(none.headers().firstValue("WWW-Authenticate"))
                    .hasValue("Bearer realm=\"provider-mirror operator\"");
            check(operation, send(operation.method(), sample, "a-client-or-any-other-token", body), 403);
            HttpResponse<byte[]> other = check(operation, send("PUT", sample, TOKEN, null), 405);
            assertThat(other.headers().firstValue("Allow")).hasValue(operation.method());
        }

        OpenApiDescription.Operation imports = operation("POST", "/api/v1/imports");
        JsonNode imported =
                json(check(imports, send("POST", "/api/v1/imports", TOKEN, Files.readAllBytes(bundle)), 200));
        assertThat(imported.path("addedNothing").asBoolean()).isFalse();
        check(imports, send("POST", "/api/v1/imports", TOKEN, "not a bundle".getBytes(StandardCharsets.UTF_8)), 400);

        OpenApiDescription.Operation accept =
                operation("POST", "/api/v1/modules/{hostname}/{namespace}/{name}/{system}/{version}/accept");
        JsonNode released = json(check(
                accept,
                send("POST", "/api/v1/modules/" + MirrorFixture.HOST + "/corp/d/aws/1.0.0/accept", TOKEN, null),
                200));
        assertThat(released.path("module").asText()).isEqualTo(MirrorFixture.HOST + "/corp/d/aws");
        check(
                accept,
                send("POST", "/api/v1/modules/" + MirrorFixture.HOST + "/corp/d/aws/9.9.9/accept", TOKEN, null),
                404);
        check(accept, send("POST", "/api/v1/modules/" + MirrorFixture.HOST + "/corp/d/aws/x/accept", TOKEN, null), 400);

        OpenApiDescription.Operation provider =
                operation("GET", "/api/v1/status/providers/{hostname}/{namespace}/{type}");
        String described = "/api/v1/status/providers/" + MirrorFixture.HOST + "/acme/described";
        JsonNode view = json(check(provider, send("GET", described, TOKEN, null), 200));
        JsonNode version = view.path("versions").path(0);
        assertThat(version.path("version").asText()).isEqualTo("1.0.0");
        Map<String, Boolean> cached = new java.util.TreeMap<>();
        version.path("platforms")
                .forEach(p ->
                        cached.put(p.path("platform").asText(), p.path("cached").asBoolean()));
        assertThat(cached)
                .as("the bundle carried linux_amd64 only")
                .isEqualTo(Map.of("darwin_arm64", false, "linux_amd64", true));
        check(
                provider,
                send("GET", "/api/v1/status/providers/" + MirrorFixture.HOST + "/acme/unknown", TOKEN, null),
                404);
        check(provider, send("GET", "/api/v1/status/providers/Not_A_Host/acme/described", TOKEN, null), 400);

        OpenApiDescription.Operation status = operation("GET", "/api/v1/status");
        JsonNode document = json(check(status, send("GET", "/api/v1/status", TOKEN, null), 200));
        assertThat(document.path("providers").findValuesAsText("address"))
                .contains(MirrorFixture.HOST + "/acme/described");
        assertThat(document.path("modules").findValuesAsText("address")).isEmpty();
        check(status, send("GET", "/api/v1/status", TOKEN, new byte[9 * 1024]), 413);
        JsonNode page = JSON.readTree(mirror.get("/status.json").body());
        assertThat(withoutTraffic(page))
                .as("the status page's data is the API's status document")
                .isEqualTo(withoutTraffic(document));

        OpenApiDescription.Operation self = operation("GET", "/api/v1/openapi.yaml");
        HttpResponse<byte[]> served = check(self, send("GET", "/api/v1/openapi.yaml", TOKEN, null), 200);
        assertThat(served.headers().firstValue("Content-Type")).hasValue("application/yaml; charset=utf-8");
        assertThat(OpenApiDescription.parse(served.body()).root()).isEqualTo(description.root());

        assertThat(problems)
                .as("answers of the running mirror that openapi.yaml does not describe")
                .isEmpty();
    }

    /** Exports provider {@code acme/described} 1.0.0 for linux_amd64 and module {@code corp/d/aws} 1.0.0. */
    private Path export() throws IOException {
        Path source = Files.writeString(
                tmp.resolve("source.yaml"),
                MirrorFixture.builder(tmp.resolve("source-cache"), origin).yaml());
        Path configuration = Files.createDirectories(tmp.resolve("configuration"));
        Files.writeString(configuration.resolve("main.tf"), """
                terraform {
                  required_providers {
                    described = {
                      source  = "%1$s/acme/described"
                      version = "1.0.0"
                    }
                  }
                }
                module "d" {
                  source  = "%1$s/corp/d/aws"
                  version = "1.0.0"
                }
                """.formatted(MirrorFixture.HOST));
        Path bundle = tmp.resolve("bundle.tar");
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int exit = new picocli.CommandLine(new io.providermirror.server.cli.ExportCommand(
                        new PrintStream(output, true, StandardCharsets.UTF_8), Map.of()))
                .execute(
                        "--config", source.toString(),
                        "--platform", "linux_amd64",
                        "--dir", configuration.toString(),
                        "--output", bundle.toString());
        assertThat(exit).as(output.toString(StandardCharsets.UTF_8)).isZero();
        return bundle;
    }

    private OpenApiDescription.Operation operation(String method, String path) {
        return description.operations().stream()
                .filter(op -> op.method().equals(method) && op.path().equals(path))
                .findFirst()
                .orElseThrow(() -> new AssertionError("openapi.yaml does not describe " + method + " " + path));
    }

    private HttpResponse<byte[]> send(String method, String path, String token, byte[] body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(mirror.url(path))
                .timeout(Duration.ofSeconds(90))
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return mirror.send(request.build());
    }

    /**
     * Notes what in {@code response} the description of {@code operation} does not describe (its status, its media
     * type, its JSON against the schema); with {@code expected}, the status must also be that one.
     */
    private HttpResponse<byte[]> check(
            OpenApiDescription.Operation operation, HttpResponse<byte[]> response, Integer expected)
            throws IOException {
        String request =
                response.request().method() + " " + response.request().uri().getRawPath() + " ("
                        + operation + ") answered " + response.statusCode() + " "
                        + abbreviated(new String(response.body(), StandardCharsets.UTF_8).replaceAll("\\s+", " "));
        if (expected != null) {
            assertThat(response.statusCode()).as(request).isEqualTo(expected);
        }
        Optional<JsonNode> described = description.response(operation, response.statusCode());
        if (described.isEmpty()) {
            problems.add(request + ": a status the operation does not describe");
            return response;
        }
        String mediaType = response.headers()
                .firstValue("Content-Type")
                .orElse("")
                .split(";")[0]
                .strip();
        if (!described.get().path("content").has(mediaType)) {
            problems.add(request + ": media type " + mediaType + " is not described for this status");
            return response;
        }
        if (mediaType.equals("application/json")) {
            JsonNode schema = description.schema(described.get(), mediaType).orElseThrow();
            description.problems(schema, JSON.readTree(response.body())).forEach(p -> problems.add(request + ": " + p));
        }
        return response;
    }

    private static String abbreviated(String text) {
        return text.length() <= 160 ? text : text.substring(0, 160) + "...";
    }

    private static JsonNode json(HttpResponse<byte[]> response) throws IOException {
        return JSON.readTree(response.body());
    }

    /** The status document without its minute-by-minute traffic, which moves on with the clock. */
    private static JsonNode withoutTraffic(JsonNode status) {
        ObjectNode copy = status.deepCopy();
        copy.remove("lastHour");
        return copy;
    }
}
