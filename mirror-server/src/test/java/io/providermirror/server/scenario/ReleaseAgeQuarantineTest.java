package io.providermirror.server.scenario;

import static io.providermirror.server.scenario.MirrorFixture.error;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOriginExtension;
import io.providermirror.testkit.ModuleArchives;
import io.providermirror.testkit.PrometheusScrape;
import io.providermirror.testkit.SettableClock;
import io.providermirror.testkit.TestPgpKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release-age quarantine through the whole server, on a clock the test moves: a version the mirror saw appear
 * is left out of the version lists and refused with the date it becomes available until it is old enough;
 * {@code policy.allowEarly} and an override let it in at once; dry-run mode lets it in and counts it; a deny rule's
 * reason reaches the refusal.
 */
final class ReleaseAgeQuarantineTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WEEK = Duration.ofDays(7);
    private static final String MODULES = "/registry/" + MirrorFixture.HOST + "/modules.v1/";

    @TempDir
    Path tmp;

    @RegisterExtension
    static final FakeOriginExtension fixture = new FakeOriginExtension();

    private final SettableClock clock = new SettableClock();

    private MirrorFixture start(String mode) {
        return MirrorFixture.builder(tmp.resolve("cache"), fixture.origin())
                .set("cache.indexTtl", "1m")
                .set("policy.minimumReleaseAge", "7d")
                .set("policy.releaseAgeMode", mode)
                .set(
                        "policy.releaseAgeOverrides",
                        List.of(Map.of("provider", "example.test/acme/fast*", "minimumAge", "0s")))
                .set(
                        "policy.allowEarly",
                        List.of(Map.of(
                                "provider",
                                "example.test/acme/urgent",
                                "version",
                                "2.0.0",
                                "reason",
                                "fixes CVE-2026-0001",
                                "expires",
                                "2999-12-31")))
                .set(
                        "policy.deny",
                        List.of(Map.of(
                                "provider", "example.test/acme/*", "versions", "= 1.5.0", "reason", "breaks IAM")))
                .clock(clock)
                .start();
    }

    private static List<String> index(MirrorFixture mirror, String type) throws Exception {
        HttpResponse<byte[]> response = mirror.get(mirror.providerPath("acme", type) + "index.json");
        assertThat(response.statusCode())
                .as(new String(response.body(), StandardCharsets.UTF_8))
                .isEqualTo(200);
        List<String> versions = new ArrayList<>();
        JSON.readTree(response.body()).get("versions").fieldNames().forEachRemaining(versions::add);
        return versions;
    }

    private static List<String> registryVersions(MirrorFixture mirror, String type) throws Exception {
        HttpResponse<byte[]> response = mirror.get("/registry/example.test/providers.v1/acme/" + type + "/versions");
        assertThat(response.statusCode()).isEqualTo(200);
        List<String> versions = new ArrayList<>();
        for (JsonNode version : JSON.readTree(response.body()).get("versions")) {
            versions.add(version.get("version").asText());
        }
        return versions;
    }

    /**
     * Lists {@code type} with 1.0.0, then lets the origin publish {@code version} and the mirror see it in a refresh;
     * returns the time the mirror first saw it.
     */
    private Instant seeAppear(MirrorFixture mirror, String type, String version) throws Exception {
        fixture.origin().publish("acme", type, "1.0.0", "linux_amd64");
        assertThat(index(mirror, type)).containsExactly("1.0.0");
        fixture.origin().publish("acme", type, version, "linux_amd64");
        clock.advance(Duration.ofMinutes(2)); // past cache.indexTtl: the next request refreshes the list
        Instant seen = clock.instant();
        index(mirror, type);
        await().atMost(Duration.ofSeconds(60)).until(() -> sightings(type).contains("\"" + version + "\""));
        return seen;
    }

    private String sightings(String type) {
        try (Stream<Path> files = Files.walk(tmp)) {
            List<Path> found = files.filter(file -> file.endsWith("sightings.json")
                            && file.getParent().getFileName().toString().equals(type))
                    .toList();
            return found.isEmpty() ? "" : Files.readString(found.get(0));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aYoungVersionIsLeftOutAndRefusedWithItsDateUntilItAgesIn() throws Exception {
        try (MirrorFixture mirror = start("enforce")) {
            Instant seen = seeAppear(mirror, "tool", "2.0.0");
            assertThat(index(mirror, "tool")).containsExactly("1.0.0");
            assertThat(registryVersions(mirror, "tool")).containsExactly("1.0.0");
            HttpResponse<byte[]> refused = mirror.get(mirror.providerPath("acme", "tool") + "2.0.0.json");
            assertThat(refused.statusCode()).isEqualTo(404);
            assertThat(error(refused))
                    .contains("example.test/acme/tool 2.0.0 is held back by policy.minimumReleaseAge (7d)")
                    .contains("first seen by this mirror " + seen)
                    .contains("it becomes available on " + seen.plus(WEEK))
                    .contains("policy.allowEarly");
            assertThat(mirror.get(mirror.providerPath("acme", "tool") + "terraform-provider-tool_2.0.0_linux_amd64.zip")
                            .statusCode())
                    .isEqualTo(404);
            assertThat(mirror.get("/registry/example.test/providers.v1/acme/tool/2.0.0/download/linux/amd64")
                            .statusCode())
                    .isEqualTo(404);

            clock.advance(WEEK.minusSeconds(1));
            assertThat(mirror.get(mirror.providerPath("acme", "tool") + "2.0.0.json")
                            .statusCode())
                    .isEqualTo(404);
            clock.advance(Duration.ofSeconds(1));
            assertThat(index(mirror, "tool")).containsExactlyInAnyOrder("1.0.0", "2.0.0");
            assertThat(registryVersions(mirror, "tool")).containsExactlyInAnyOrder("1.0.0", "2.0.0");
            assertThat(mirror.get(mirror.providerPath("acme", "tool") + "2.0.0.json")
                            .statusCode())
                    .isEqualTo(200);
            PrometheusScrape metrics =
                    PrometheusScrape.parse(new String(mirror.get("/metrics").body(), StandardCharsets.UTF_8));
            assertThat(metrics.value("mirror_release_age_holds_total", "mode", "enforce", "answer", "request"))
                    .isGreaterThanOrEqualTo(4);
        }
    }

    @Test
    void aVersionNotListedYetIsHeldFromNowOn() throws Exception {
        try (MirrorFixture mirror = start("enforce")) {
            fixture.origin().publish("acme", "eager", "1.0.0", "linux_amd64");
            assertThat(index(mirror, "eager")).containsExactly("1.0.0");
            fixture.origin().publish("acme", "eager", "3.0.0", "linux_amd64");
            HttpResponse<byte[]> refused = mirror.get(mirror.providerPath("acme", "eager") + "3.0.0.json");
            assertThat(refused.statusCode()).isEqualTo(404);
            assertThat(error(refused))
                    .contains("it becomes available on " + clock.instant().plus(WEEK));
        }
    }

    @Test
    void allowEarlyAndAnOverrideLetAYoungVersionIn() throws Exception {
        try (MirrorFixture mirror = start("enforce")) {
            seeAppear(mirror, "urgent", "2.0.0");
            assertThat(index(mirror, "urgent")).containsExactlyInAnyOrder("1.0.0", "2.0.0");
            assertThat(mirror.get(mirror.providerPath("acme", "urgent") + "2.0.0.json")
                            .statusCode())
                    .isEqualTo(200);
            seeAppear(mirror, "fastlane", "2.0.0");
            assertThat(index(mirror, "fastlane")).containsExactlyInAnyOrder("1.0.0", "2.0.0");
        }
    }

    @Test
    void aDryRunLetsAYoungVersionInAndCountsIt() throws Exception {
        try (MirrorFixture mirror = start("dryRun")) {
            seeAppear(mirror, "trial", "2.0.0");
            assertThat(index(mirror, "trial")).containsExactlyInAnyOrder("1.0.0", "2.0.0");
            assertThat(mirror.get(mirror.providerPath("acme", "trial") + "2.0.0.json")
                            .statusCode())
                    .isEqualTo(200);
            PrometheusScrape metrics =
                    PrometheusScrape.parse(new String(mirror.get("/metrics").body(), StandardCharsets.UTF_8));
            assertThat(metrics.value("mirror_release_age_holds_total", "mode", "dryRun", "answer", "request"))
                    .isEqualTo(1);
            assertThat(metrics.value("mirror_release_age_holds_total", "mode", "dryRun", "answer", "listing"))
                    .isGreaterThanOrEqualTo(1);
            assertThat(metrics.value("mirror_release_age_holds_total", "mode", "enforce", "answer", "request"))
                    .as("nothing held for real in a dry run")
                    .isZero();
            assertThat(metrics.value("mirror_release_age_holds_total", "mode", "enforce", "answer", "listing"))
                    .isZero();
        }
    }

    private static List<String> moduleVersions(MirrorFixture mirror) throws Exception {
        HttpResponse<byte[]> response = mirror.get(MODULES + "corp/net/aws/versions");
        assertThat(response.statusCode()).isEqualTo(200);
        List<String> versions = new ArrayList<>();
        for (JsonNode version :
                JSON.readTree(response.body()).get("modules").get(0).get("versions")) {
            versions.add(version.get("version").asText());
        }
        return versions;
    }

    @Test
    void aYoungModuleVersionIsLeftOutOfVersionsAndLatestAndRefusedUntilItAgesIn() throws Exception {
        FakeModuleRegistry registry = FakeModuleRegistry.withFullApi(fixture.origin());
        registry.serveArchive("/archives/m.tar.gz", ModuleArchives.tarGz(Map.of("main.tf", "# m\n")));
        try (MirrorFixture mirror = start("enforce")) {
            registry.publish("corp", "net", "aws", "1.0.0", "/archives/m.tar.gz");
            assertThat(moduleVersions(mirror)).containsExactly("1.0.0");
            registry.publish("corp", "net", "aws", "1.1.0", "/archives/m.tar.gz");
            clock.advance(Duration.ofMinutes(2));
            Instant seen = clock.instant();
            moduleVersions(mirror);
            await().atMost(Duration.ofSeconds(60)).until(() -> sightings("aws").contains("\"1.1.0\""));

            assertThat(moduleVersions(mirror)).containsExactly("1.0.0");
            HttpResponse<byte[]> latest = mirror.get(MODULES + "corp/net/aws");
            assertThat(latest.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(latest.body()).get("version").asText()).isEqualTo("1.0.0");
            HttpResponse<byte[]> refused = mirror.get(MODULES + "corp/net/aws/1.1.0/download");
            assertThat(refused.statusCode()).isEqualTo(404);
            assertThat(error(refused))
                    .contains("module example.test/corp/net/aws 1.1.0 is held back by policy.minimumReleaseAge (7d)")
                    .contains("it becomes available on " + seen.plus(WEEK));

            clock.advance(WEEK);
            assertThat(moduleVersions(mirror)).containsExactlyInAnyOrder("1.0.0", "1.1.0");
            assertThat(mirror.get(MODULES + "corp/net/aws/1.1.0/download").statusCode())
                    .isEqualTo(204);
        }
    }

    @Test
    void theOriginsSignatureDateHoldsBackAVersionTheFirstListAlreadyHad() throws Exception {
        try (MirrorFixture mirror = start("enforce")) {
            Instant signed = clock.instant().minus(Duration.ofDays(2)).truncatedTo(ChronoUnit.SECONDS);
            TestPgpKey key = fixture.origin().signingKey();
            fixture.origin().publish("acme", "signed", "1.0.0", "linux_amd64");
            fixture.origin()
                    .publishSigned(
                            "acme",
                            "signed",
                            "2.0.0",
                            key,
                            sums -> key.signDetached(sums, signed, null),
                            "linux_amd64");
            assertThat(index(mirror, "signed"))
                    .as("in the first list and of unknown age: allowed (policy.unknownReleaseAge)")
                    .containsExactlyInAnyOrder("1.0.0", "2.0.0");
            HttpResponse<byte[]> refused = mirror.get(mirror.providerPath("acme", "signed") + "2.0.0.json");
            assertThat(refused.statusCode()).isEqualTo(404);
            assertThat(error(refused))
                    .contains("dated by its origin (published or signed) " + signed)
                    .contains("it becomes available on " + signed.plus(WEEK));
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> sightings("signed").contains("\"signed\":{\"2.0.0\""));
            assertThat(index(mirror, "signed")).containsExactly("1.0.0");
        }
    }

    @Test
    void aDenyRulesReasonReachesTheRefusal() throws Exception {
        try (MirrorFixture mirror = start("enforce")) {
            fixture.origin().publish("acme", "banned", "1.5.0", "linux_amd64");
            fixture.origin().publish("acme", "banned", "1.6.0", "linux_amd64");
            HttpResponse<byte[]> refused = mirror.get(mirror.providerPath("acme", "banned") + "1.5.0.json");
            assertThat(refused.statusCode()).isEqualTo(404);
            assertThat(error(refused))
                    .contains("example.test/acme/banned 1.5.0 is denied by policy.deny[0] (provider "
                            + "\"example.test/acme/*\", versions \"= 1.5.0\", reason \"breaks IAM\")");
        }
    }
}
