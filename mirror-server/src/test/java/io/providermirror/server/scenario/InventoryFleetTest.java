package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.cli.InventoryCommand;
import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.ModuleArchives;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two instances on one bucket (S3Proxy) keep one usage inventory: each counts what it served in its own shard,
 * written every {@code inventory.flushInterval}, and each instance's operator API, and the {@code inventory} command
 * reading the bucket, answer the fleet's counts; a named client seen by one instance is shown with when by the
 * other.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class InventoryFleetTest {

    private static final String OPERATOR_TOKEN = "operator-secret-token";
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final MirrorBucket bucket = MirrorBucket.named("inventory");

    @TempDir
    Path tmp;

    private MirrorFixture.Builder instance(Path cache, FakeOrigin origin) {
        return bucket.mirror(cache, origin, "fleet/")
                .set("operator.tokens", List.of(MirrorAuth.hash(OPERATOR_TOKEN)))
                .set("inventory.flushInterval", "1s");
    }

    @Test
    void twoInstancesOnOneBucketAnswerOneInventory() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"))) {
            FakeModuleRegistry registry = FakeModuleRegistry.of(origin);
            origin.publish("acme", "shared", "1.0.0", "linux_amd64");
            registry.serveArchive("/archives/m.tar.gz", ModuleArchives.tarGz(Map.of("main.tf", "# m\n")));
            registry.publish("corp", "m", "aws", "2.0.0", "/archives/m.tar.gz");
            String archive = "/providers/example.test/acme/shared/terraform-provider-shared_1.0.0_linux_amd64.zip";
            String module = "/registry/example.test/modules.v1/corp/m/aws/2.0.0/";
            MirrorFixture.Builder second = instance(tmp.resolve("cache-b"), origin);
            try (MirrorFixture a = instance(tmp.resolve("cache-a"), origin).start();
                    MirrorFixture b = second.start()) {
                assertThat(a.get(archive).statusCode()).isEqualTo(200);
                assertThat(b.get(archive).statusCode()).isEqualTo(200);
                assertThat(b.get(archive).statusCode()).isEqualTo(200);
                assertThat(b.get(module + "download").statusCode()).isEqualTo(204);
                assertThat(b.get(module + "module.tar.gz").statusCode()).isEqualTo(200);

                // Each instance's flush writes its shard; each answer merges the other's.
                await().atMost(Duration.ofMinutes(2)).untilAsserted(() -> {
                    JsonNode fromA = inventory(a);
                    assertThat(requests(fromA, "acme/shared")).isEqualTo(3);
                    assertThat(requests(fromA, "corp/m/aws")).isEqualTo(1);
                    assertThat(inventory(b)).isEqualTo(fromA);
                });
            }
            Path config = Files.writeString(tmp.resolve("mirror.yaml"), second.yaml());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int exit = new picocli.CommandLine(new InventoryCommand(
                            new PrintStream(out, true, StandardCharsets.UTF_8), System.err, Map.of()))
                    .execute("--config", config.toString(), "--format", "json");
            assertThat(exit).isZero();
            JsonNode printed = JSON.readTree(out.toByteArray());
            assertThat(requests(printed, "acme/shared")).isEqualTo(3);
            assertThat(requests(printed, "corp/m/aws")).isEqualTo(1);
        }
    }

    @Test
    void aClientSeenByOneInstanceIsShownWithWhenByTheOther() throws Exception {
        String ci = "ci-fleet-secret-token";
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-clients"))) {
            origin.publish("acme", "seen", "1.0.0", "linux_amd64");
            List<Map<String, Object>> clients = List.of(Map.of("name", "ci-fleet", "token", MirrorAuth.hash(ci)));
            try (MirrorFixture a = instance(tmp.resolve("clients-a"), origin)
                            .set("auth.clients", clients)
                            .start();
                    MirrorFixture b = instance(tmp.resolve("clients-b"), origin)
                            .set("auth.clients", clients)
                            .start()) {
                assertThat(a.send(HttpRequest.newBuilder(a.url("/providers/example.test/acme/seen/index.json"))
                                        .header("Authorization", "Bearer " + ci)
                                        .build())
                                .statusCode())
                        .isEqualTo(200);
                String seenByA = lastSeen(a);
                assertThat(seenByA).isNotEqualTo("null");

                // A's flush writes the sighting in its shard; B's flush reads it.
                await().atMost(Duration.ofMinutes(2))
                        .untilAsserted(() -> assertThat(lastSeen(b)).isEqualTo(seenByA));
            }
        }
    }

    /** When the operator API of {@code instance} says {@code ci-fleet} was last seen. */
    private static String lastSeen(MirrorFixture instance) throws Exception {
        return api(instance, "/api/v1/clients")
                .path("clients")
                .get(0)
                .path("lastSeen")
                .asText();
    }

    private static JsonNode inventory(MirrorFixture instance) throws Exception {
        return api(instance, "/api/v1/inventory");
    }

    private static JsonNode api(MirrorFixture instance, String path) throws Exception {
        HttpResponse<byte[]> response = instance.send(HttpRequest.newBuilder(instance.url(path))
                .header("Authorization", "Bearer " + OPERATOR_TOKEN)
                .timeout(Duration.ofSeconds(90))
                .build());
        assertThat(response.statusCode()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static long requests(JsonNode answer, String addressEnd) {
        long sum = 0;
        for (JsonNode item : answer.path("items")) {
            if (item.path("address").asText().endsWith("/" + addressEnd)) {
                sum += item.path("requests").asLong();
            }
        }
        return sum;
    }
}
