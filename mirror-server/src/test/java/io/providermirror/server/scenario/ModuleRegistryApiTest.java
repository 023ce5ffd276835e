package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.ModuleArchives;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The full module registry API through the running mirror: against an origin that implements it and one that
 * implements only the protocol, online and offline, under the policy and with access control.
 */
final class ModuleRegistryApiTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "module-api-token";
    private static final String BASE = "/registry/" + MirrorFixture.HOST + "/modules.v1/";
    private static final String PUBLISHED = "2024-05-01T10:00:00.123456Z";

    @TempDir
    Path tmp;

    private FakeOrigin origin;
    private MirrorFixture mirror;

    @BeforeEach
    void start() {
        origin = FakeOrigin.start(tmp.resolve("origin"));
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

    /** Modules of two namespaces on three systems; corp/net/aws described, verified and dated. */
    private FakeModuleRegistry fullRegistry() {
        FakeModuleRegistry registry = FakeModuleRegistry.withFullApi(origin);
        publishAll(registry);
        registry.describe("corp", "net", "aws", "Networks on AWS", true);
        registry.describe("corp", "dns", "aws", "Name servers", false);
        registry.publishedAt("corp", "net", "aws", "1.1.0", PUBLISHED);
        return registry;
    }

    private static void publishAll(FakeModuleRegistry registry) {
        byte[] archive = ModuleArchives.tarGz(Map.of("main.tf", "output \"v\" {\n  value = 1\n}\n"));
        registry.serveArchive("/archives/m.tar.gz", archive);
        registry.publish("corp", "net", "aws", "1.0.0", "/archives/m.tar.gz");
        registry.publish("corp", "net", "aws", "1.1.0", "/archives/m.tar.gz");
        registry.publish("corp", "net", "azurerm", "1.0.0", "/archives/m.tar.gz");
        registry.publish("corp", "dns", "aws", "2.0.0", "/archives/m.tar.gz");
        registry.publish("other", "vpc", "aws", "3.0.0", "/archives/m.tar.gz");
    }

    private JsonNode json(HttpResponse<byte[]> response) throws Exception {
        assertThat(response.statusCode())
                .as(new String(response.body(), java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
        return JSON.readTree(response.body());
    }

    private static List<String> ids(JsonNode answer) {
        List<String> ids = new ArrayList<>();
        answer.get("modules").forEach(module -> ids.add(module.get("id").asText()));
        return ids;
    }

    private static Optional<String> answerHeader(HttpResponse<byte[]> response) {
        return response.headers().firstValue("X-Mirror-Answer");
    }

    @Test
    void everyEndpointIsPulledThroughFromAnOriginWithTheFullApiAndRewrittenOntoTheMirror() throws Exception {
        fullRegistry();
        mirror = builder().start();

        HttpResponse<byte[]> all = mirror.get(BASE);
        assertThat(answerHeader(all)).contains("origin");
        JsonNode listed = json(all);
        assertThat(ids(listed))
                .containsExactly(
                        "corp/dns/aws/2.0.0", "corp/net/aws/1.1.0", "corp/net/azurerm/1.0.0", "other/vpc/aws/3.0.0");
        JsonNode net = listed.get("modules").get(1);
        assertThat(net.get("source").asText())
                .isEqualTo(mirror.url(BASE + "corp/net/aws/1.1.0/download").toString());
        assertThat(net.get("description").asText()).isEqualTo("Networks on AWS");
        assertThat(net.get("verified").asBoolean()).isTrue();
        assertThat(net.get("downloads").asLong()).isEqualTo(42);
        assertThat(net.get("published_at").asText()).isEqualTo(PUBLISHED);
        assertThat(net.get("owner").asText()).isEqualTo("owner-of-corp");
        // What the origin sends besides the fields the mirror reads is not passed on.
        assertThat(net.has("provider_logo_url")).isFalse();
        assertThat(net.has("tags")).isFalse();

        // Paging: the origin's offsets, the mirror's links, the query passed on.
        JsonNode first = json(mirror.get(BASE + "?limit=2"));
        assertThat(ids(first)).containsExactly("corp/dns/aws/2.0.0", "corp/net/aws/1.1.0");
        assertThat(first.get("meta").get("next_offset").asInt()).isEqualTo(2);
        String next = first.get("meta").get("next_url").asText();
        assertThat(next).isEqualTo(BASE + "?limit=2&offset=2");
        JsonNode second = json(mirror.get(next));
        assertThat(ids(second)).containsExactly("corp/net/azurerm/1.0.0", "other/vpc/aws/3.0.0");
        assertThat(second.get("meta").get("prev_url").asText()).isEqualTo(BASE + "?limit=2&offset=0");
        assertThat(second.get("meta").has("next_url")).isFalse();

        assertThat(ids(json(mirror.get(BASE + "corp"))))
                .containsExactly("corp/dns/aws/2.0.0", "corp/net/aws/1.1.0", "corp/net/azurerm/1.0.0");
        assertThat(ids(json(mirror.get(BASE + "?provider=azurerm")))).containsExactly("corp/net/azurerm/1.0.0");
        assertThat(ids(json(mirror.get(BASE + "?verified=true")))).containsExactly("corp/net/aws/1.1.0");
        assertThat(ids(json(mirror.get(BASE + "search?q=networks")))).containsExactly("corp/net/aws/1.1.0");
        assertThat(ids(json(mirror.get(BASE + "search?q=aws&namespace=other")))).containsExactly("other/vpc/aws/3.0.0");
        assertThat(ids(json(mirror.get(BASE + "corp/net"))))
                .containsExactly("corp/net/aws/1.1.0", "corp/net/azurerm/1.0.0");

        HttpResponse<byte[]> latestResponse = mirror.get(BASE + "corp/net/aws");
        assertThat(answerHeader(latestResponse)).contains("origin");
        JsonNode latest = json(latestResponse);
        assertThat(latest.get("id").asText()).isEqualTo("corp/net/aws/1.1.0");
        assertThat(latest.get("source").asText())
                .isEqualTo(mirror.url(BASE + "corp/net/aws/1.1.0/download").toString());
        assertThat(latest.get("published_at").asText()).isEqualTo(PUBLISHED);
        assertThat(latest.get("versions").toString()).isEqualTo("[\"1.0.0\",\"1.1.0\"]");
        assertThat(latest.get("providers").toString()).isEqualTo("[\"aws\"]");
        JsonNode root = latest.get("root");
        assertThat(root.get("inputs").get(0).get("name").asText()).isEqualTo("cidr");
        assertThat(root.get("inputs").get(0).get("default").asText()).isEqualTo("\"10.0.0.0/16\"");
        assertThat(root.get("provider_dependencies").get(0).get("source").asText())
                .isEqualTo("hashicorp/aws");
        assertThat(root.get("resources").get(0).get("type").asText()).isEqualTo("null_resource");
        assertThat(root.has("injected")).isFalse();
        assertThat(latest.get("submodules").get(0).get("path").asText()).isEqualTo("modules/inner");

        JsonNode details = json(mirror.get(BASE + "corp/net/aws/1.0.0"));
        assertThat(details.get("id").asText()).isEqualTo("corp/net/aws/1.0.0");
        assertThat(details.has("published_at")).isFalse();

        HttpResponse<byte[]> download = mirror.get(BASE + "corp/net/aws/download");
        assertThat(download.statusCode()).isEqualTo(302);
        assertThat(download.headers().firstValue("Location")).contains(BASE + "corp/net/aws/1.1.0/download");

        // The version's published_at is kept with it, for rules on a release's age.
        assertThat(mirror.mirror
                        .core()
                        .modules()
                        .catalog()
                        .publishedAt(
                                new ModuleAddress(MirrorFixture.HOST, "corp", "net", "aws"),
                                new ProviderVersion("1.1.0")))
                .contains(Instant.parse(PUBLISHED));
    }

    @Test
    void anAnswerIsHeldForTheTtlAndOneOriginRequestServesConcurrentCallers() throws Exception {
        fullRegistry();
        mirror = builder().start();
        List<java.util.concurrent.CompletableFuture<HttpResponse<byte[]>>> answers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            answers.add(mirror.client.sendAsync(
                    HttpRequest.newBuilder(mirror.url(BASE + "corp?limit=5"))
                            .timeout(Duration.ofSeconds(90))
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray()));
        }
        for (var answer : answers) {
            assertThat(ids(json(answer.join()))).hasSize(3);
        }
        assertThat(json(mirror.get(BASE + "corp?limit=5")).get("modules")).hasSize(3);
        assertThat(origin.requestsMatching("/v1/modules/corp")).isEqualTo(1);
    }

    @Test
    void offlineTheMirrorAnswersFromWhatItHolds() throws Exception {
        FakeModuleRegistry registry = fullRegistry();
        mirror = builder().start();
        json(mirror.get(BASE));
        json(mirror.get(BASE + "corp/net/aws"));
        mirror.close();
        mirror = builder().set("upstream.offline", true).start();
        int before = registry.originRequests();

        HttpResponse<byte[]> listResponse = mirror.get(BASE);
        assertThat(answerHeader(listResponse)).contains("cache");
        JsonNode listed = json(listResponse);
        assertThat(ids(listed))
                .containsExactly(
                        "corp/dns/aws/2.0.0", "corp/net/aws/1.1.0", "corp/net/azurerm/1.0.0", "other/vpc/aws/3.0.0");
        JsonNode net = listed.get("modules").get(1);
        assertThat(net.get("description").asText()).isEqualTo("Networks on AWS");
        assertThat(net.get("verified").asBoolean()).isTrue();
        assertThat(net.get("published_at").asText()).isEqualTo(PUBLISHED);
        assertThat(net.get("source").asText())
                .isEqualTo(mirror.url(BASE + "corp/net/aws/1.1.0/download").toString());
        // The download count is the origin's to know: left out, not invented.
        assertThat(net.has("downloads")).isFalse();

        JsonNode page = json(mirror.get(BASE + "?limit=3&offset=1"));
        assertThat(ids(page)).containsExactly("corp/net/aws/1.1.0", "corp/net/azurerm/1.0.0", "other/vpc/aws/3.0.0");
        assertThat(page.get("meta").get("prev_url").asText()).isEqualTo(BASE + "?limit=3&offset=0");
        assertThat(ids(json(mirror.get(BASE + "search?q=name+servers")))).containsExactly("corp/dns/aws/2.0.0");
        assertThat(ids(json(mirror.get(BASE + "search?q=vpc")))).containsExactly("other/vpc/aws/3.0.0");
        assertThat(ids(json(mirror.get(BASE + "corp?verified=true")))).containsExactly("corp/net/aws/1.1.0");
        assertThat(ids(json(mirror.get(BASE + "corp/net"))))
                .containsExactly("corp/net/aws/1.1.0", "corp/net/azurerm/1.0.0");

        HttpResponse<byte[]> latestResponse = mirror.get(BASE + "corp/net/aws");
        assertThat(answerHeader(latestResponse)).contains("cache");
        JsonNode latest = json(latestResponse);
        assertThat(latest.get("id").asText()).isEqualTo("corp/net/aws/1.1.0");
        assertThat(latest.get("root").get("inputs").get(0).get("name").asText()).isEqualTo("cidr");
        assertThat(latest.get("published_at").asText()).isEqualTo(PUBLISHED);
        assertThat(latest.get("versions").toString()).isEqualTo("[\"1.0.0\",\"1.1.0\"]");
        assertThat(latest.has("downloads")).isFalse();

        // A version the mirror saw listed but never described: the facts it has.
        JsonNode older = json(mirror.get(BASE + "corp/net/aws/1.0.0"));
        assertThat(older.get("description").asText()).isEqualTo("Networks on AWS");
        assertThat(older.has("root")).isFalse();
        assertThat(older.has("published_at")).isFalse();

        assertThat(mirror.get(BASE + "corp/net/aws/download").headers().firstValue("Location"))
                .contains(BASE + "corp/net/aws/1.1.0/download");
        HttpResponse<byte[]> unknown = mirror.get(BASE + "corp/nothing/aws/1.0.0");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(MirrorFixture.error(unknown)).contains("offline");
        assertThat(registry.originRequests()).isEqualTo(before);
    }

    @Test
    void anOriginWithOnlyTheProtocolIsAnsweredFromTheCache() throws Exception {
        FakeModuleRegistry registry = FakeModuleRegistry.of(origin);
        publishAll(registry);
        mirror = builder().start();
        // What terraform init does: the versions, the download and the archive.
        assertThat(mirror.get(BASE + "corp/net/aws/versions").statusCode()).isEqualTo(200);
        HttpResponse<byte[]> download = mirror.get(BASE + "corp/net/aws/1.1.0/download");
        assertThat(download.statusCode()).isEqualTo(204);
        String archive =
                download.headers().firstValue("X-Terraform-Get").orElseThrow().split("\\?")[0];
        assertThat(mirror.get(java.net.URI.create(archive).getRawPath()).statusCode())
                .isEqualTo(200);

        HttpResponse<byte[]> listResponse = mirror.get(BASE);
        assertThat(answerHeader(listResponse)).contains("cache");
        JsonNode net = json(listResponse).get("modules").get(0);
        assertThat(net.get("id").asText()).isEqualTo("corp/net/aws/1.1.0");
        assertThat(net.has("description")).isFalse();
        assertThat(net.has("downloads")).isFalse();

        HttpResponse<byte[]> latestResponse = mirror.get(BASE + "corp/net/aws");
        assertThat(answerHeader(latestResponse)).contains("cache");
        JsonNode latest = json(latestResponse);
        assertThat(latest.get("id").asText()).isEqualTo("corp/net/aws/1.1.0");
        assertThat(latest.get("versions").toString()).isEqualTo("[\"1.0.0\",\"1.1.0\"]");
        assertThat(latest.has("root")).isFalse();
        assertThat(json(mirror.get(BASE + "corp/net/aws/1.0.0")).get("version").asText())
                .isEqualTo("1.0.0");
        assertThat(mirror.get(BASE + "corp/net/aws/download").headers().firstValue("Location"))
                .contains(BASE + "corp/net/aws/1.1.0/download");
        assertThat(mirror.get(BASE + "corp/nothing/aws/1.0.0").statusCode()).isEqualTo(404);
    }

    @Test
    void aDeniedModuleIsNeitherListedNorFoundNorDescribed() throws Exception {
        fullRegistry();
        mirror = builder()
                .set(
                        "policy.modules.deny",
                        List.of(
                                Map.of("module", "example.test/corp/dns/*"),
                                Map.of("module", "example.test/corp/net/aws", "versions", ">= 1.1.0")))
                .start();

        assertThat(ids(json(mirror.get(BASE)))).containsExactly("corp/net/azurerm/1.0.0", "other/vpc/aws/3.0.0");
        assertThat(ids(json(mirror.get(BASE + "search?q=name")))).isEmpty();
        assertThat(ids(json(mirror.get(BASE + "corp")))).containsExactly("corp/net/azurerm/1.0.0");
        assertThat(mirror.get(BASE + "corp/dns/aws").statusCode()).isEqualTo(404);
        assertThat(mirror.get(BASE + "corp/dns/aws/2.0.0").statusCode()).isEqualTo(404);
        assertThat(mirror.get(BASE + "corp/dns/aws/download").statusCode()).isEqualTo(404);
        assertThat(mirror.get(BASE + "corp/net/aws/1.1.0").statusCode()).isEqualTo(404);

        // The newest version the policy lets in is the latest; denied versions are not listed.
        JsonNode latest = json(mirror.get(BASE + "corp/net/aws"));
        assertThat(latest.get("id").asText()).isEqualTo("corp/net/aws/1.0.0");
        assertThat(latest.get("versions").toString()).isEqualTo("[\"1.0.0\"]");
        assertThat(mirror.get(BASE + "corp/net/aws/download").headers().firstValue("Location"))
                .contains(BASE + "corp/net/aws/1.0.0/download");

        // Nor offline: what the mirror keeps holds nothing denied.
        mirror.close();
        mirror = builder()
                .set("upstream.offline", true)
                .set("policy.modules.deny", List.of(Map.of("module", "example.test/corp/dns/*")))
                .start();
        assertThat(ids(json(mirror.get(BASE)))).doesNotContain("corp/dns/aws/2.0.0");
    }

    @Test
    void withAccessControlEveryEndpointWantsAToken() throws Exception {
        fullRegistry();
        mirror = builder().set("auth.tokens", List.of(MirrorAuth.hash(TOKEN))).start();
        for (String path : List.of(
                BASE,
                BASE + "corp",
                BASE + "search?q=net",
                BASE + "corp/net",
                BASE + "corp/net/aws",
                BASE + "corp/net/aws/1.0.0",
                BASE + "corp/net/aws/download")) {
            HttpResponse<byte[]> refused = mirror.get(path);
            assertThat(refused.statusCode()).as(path).isEqualTo(401);
            assertThat(MirrorFixture.error(refused)).contains("credentials \"" + MirrorFixture.HOST + "\"");
            HttpResponse<byte[]> allowed = mirror.send(HttpRequest.newBuilder(mirror.url(path))
                    .header("Authorization", "Bearer " + TOKEN)
                    .timeout(Duration.ofSeconds(90))
                    .build());
            assertThat(allowed.statusCode()).as(path).isIn(200, 302);
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "?offset=-1",
                "?offset=abc",
                "?offset=1234567890",
                "?limit=0",
                "?limit=ten",
                "?verified=yes",
                "?provider=AWS",
                "?provider=a%2Fb",
                "?offset=1&offset=2",
                "search",
                "search?q=",
                "search?q=%20%20",
                "search?q=x&namespace=-bad",
                "corp/net?limit=-5",
            })
    void badQueryParametersAreA400WithAJsonError(String request) throws Exception {
        FakeModuleRegistry registry = fullRegistry();
        mirror = builder().start();
        HttpResponse<byte[]> answer = mirror.get(BASE + request);
        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(MirrorFixture.error(answer)).isNotBlank();
        assertThat(registry.registryRequests()).isZero();
    }
}
