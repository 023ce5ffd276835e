package io.providermirror.server.scenario;

import static io.providermirror.server.scenario.MirrorFixture.error;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOriginExtension;
import io.providermirror.testkit.ModuleArchives;
import io.providermirror.testkit.SettableClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release-age quarantine on every module answer besides the protocol's version list and download, through the
 * whole server on a clock the test moves: the mirror's own archive URL of a held version is refused, the full
 * registry API refuses its details with the rule and the date, and its lists, search and latest answers leave it
 * out, until it ages in.
 */
final class ModuleReleaseAgeTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WEEK = Duration.ofDays(7);
    private static final String BASE = "/registry/" + MirrorFixture.HOST + "/modules.v1/";

    @TempDir
    Path tmp;

    @RegisterExtension
    static final FakeOriginExtension fixture = new FakeOriginExtension();

    private final SettableClock clock = new SettableClock();

    private MirrorFixture start() {
        return MirrorFixture.builder(tmp.resolve("cache"), fixture.origin())
                .set("cache.indexTtl", "1m")
                .set("policy.minimumReleaseAge", "7d")
                .clock(clock)
                .start();
    }

    private static JsonNode json(HttpResponse<byte[]> response) throws IOException {
        assertThat(response.statusCode())
                .as(new String(response.body(), StandardCharsets.UTF_8))
                .isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static List<String> ids(JsonNode answer) {
        List<String> ids = new ArrayList<>();
        answer.get("modules").forEach(module -> ids.add(module.get("id").asText()));
        return ids;
    }

    private String sightings() {
        try (Stream<Path> files = Files.walk(tmp)) {
            List<Path> found = files.filter(file -> file.endsWith("sightings.json")
                            && file.getParent().getFileName().toString().equals("aws"))
                    .toList();
            return found.isEmpty() ? "" : Files.readString(found.get(0));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aHeldModuleVersionsArchiveAndDetailsAreRefusedAndTheApiLeavesItOutUntilItAgesIn() throws Exception {
        FakeModuleRegistry registry = FakeModuleRegistry.withFullApi(fixture.origin());
        registry.serveArchive("/archives/m.tar.gz", ModuleArchives.tarGz(Map.of("main.tf", "# m\n")));
        registry.describe("corp", "net", "aws", "a network", true);
        try (MirrorFixture mirror = start()) {
            registry.publish("corp", "net", "aws", "1.0.0", "/archives/m.tar.gz");
            assertThat(mirror.get(BASE + "corp/net/aws/versions").statusCode()).isEqualTo(200);
            HttpResponse<byte[]> download = mirror.get(BASE + "corp/net/aws/1.0.0/download");
            assertThat(download.statusCode()).isEqualTo(204);
            String archive1 = URI.create(download.headers()
                            .firstValue("X-Terraform-Get")
                            .orElseThrow()
                            .split("\\?")[0])
                    .getRawPath();
            assertThat(archive1).contains("1.0.0");
            assertThat(mirror.get(archive1).statusCode()).isEqualTo(200);

            registry.publish("corp", "net", "aws", "1.1.0", "/archives/m.tar.gz");
            registry.publishedAt("corp", "net", "aws", "1.1.0", "2020-01-01T00:00:00Z");
            clock.advance(Duration.ofMinutes(2)); // past cache.indexTtl: the next request refreshes the list
            Instant seen = clock.instant();
            mirror.get(BASE + "corp/net/aws/versions");
            await().atMost(Duration.ofSeconds(60)).until(() -> sightings().contains("\"1.1.0\""));

            String archive2 = archive1.replace("1.0.0", "1.1.0");
            HttpResponse<byte[]> refusedArchive = mirror.get(archive2);
            assertThat(refusedArchive.statusCode())
                    .as(new String(refusedArchive.body(), StandardCharsets.UTF_8))
                    .isEqualTo(404);
            assertThat(error(refusedArchive))
                    .contains("module example.test/corp/net/aws 1.1.0 is held back by policy.minimumReleaseAge (7d)")
                    .contains("it becomes available on " + seen.plus(WEEK));

            HttpResponse<byte[]> refusedDetails = mirror.get(BASE + "corp/net/aws/1.1.0");
            assertThat(refusedDetails.statusCode()).isEqualTo(404);
            assertThat(error(refusedDetails))
                    .contains("1.1.0 is held back by policy.minimumReleaseAge (7d)")
                    .contains("it becomes available on " + seen.plus(WEEK));

            assertThat(json(mirror.get(BASE + "corp/net/aws/1.0.0"))
                            .get("versions")
                            .toString())
                    .isEqualTo("[\"1.0.0\"]");
            assertThat(json(mirror.get(BASE + "corp/net/aws")).get("version").asText())
                    .isEqualTo("1.0.0");
            assertThat(ids(json(mirror.get(BASE)))).doesNotContain("corp/net/aws/1.1.0");
            assertThat(ids(json(mirror.get(BASE + "corp/net")))).doesNotContain("corp/net/aws/1.1.0");
            assertThat(ids(json(mirror.get(BASE + "search?q=network")))).doesNotContain("corp/net/aws/1.1.0");

            clock.advance(WEEK);
            assertThat(mirror.get(archive2).statusCode()).isEqualTo(200);
            assertThat(json(mirror.get(BASE + "corp/net/aws/1.1.0"))
                            .get("version")
                            .asText())
                    .isEqualTo("1.1.0");
            assertThat(ids(json(mirror.get(BASE)))).contains("corp/net/aws/1.1.0");
            assertThat(ids(json(mirror.get(BASE + "search?q=network")))).contains("corp/net/aws/1.1.0");
        }
    }
}
