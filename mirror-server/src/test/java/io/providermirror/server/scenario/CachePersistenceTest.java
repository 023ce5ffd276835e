package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.server.app.MirrorApplication;
import io.providermirror.testkit.FakeOrigin;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** What the cache keeps across restarts and origin outages, and how version lists stay fresh. */
final class CachePersistenceTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    /**
     * After a restart, the warm-up reads the cached releases clients asked for most, verified, into memory before any
     * request: a version whose evidence is then lost from the disk, its origin down, is still answered as before.
     */
    @Test
    void aRestartedMirrorLoadsTheMostRequestedCachedReleasesIntoMemoryBeforeAnyRequest() throws Exception {
        FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
        origin.publish("acme", "asked", "1.0.0", "linux_amd64");
        String base = "/providers/example.test/acme/asked/";
        byte[] versionDocument;
        try (MirrorFixture mirror = MirrorFixture.start(tmp.resolve("cache"), origin, Duration.ofMinutes(15))) {
            assertThat(mirror.get(base + "terraform-provider-asked_1.0.0_linux_amd64.zip")
                            .statusCode())
                    .isEqualTo(200);
            await().atMost(Duration.ofSeconds(10))
                    .until(() ->
                            new String(mirror.get(base + "1.0.0.json").body(), StandardCharsets.UTF_8).contains("h1:"));
            versionDocument = mirror.get(base + "1.0.0.json").body();
        }
        Path evidence;
        try (java.util.stream.Stream<Path> files = Files.walk(tmp.resolve("cache"))) {
            evidence = files.filter(file -> file.endsWith(Path.of("acme", "asked", "1.0.0", "release.json")))
                    .findFirst()
                    .orElseThrow();
        }
        URI deadOrigin = origin.discoveryUrl();
        Path originCa = origin.caCertificate();
        origin.close();

        try (MirrorFixture restarted = MirrorFixture.builder(tmp.resolve("cache"), originCa, deadOrigin)
                .withManagement()
                .start()) {
            restarted.mirror.warmedUp().get(2, java.util.concurrent.TimeUnit.MINUTES);
            assertThat(restarted.management("/metrics").body().lines())
                    .anyMatch(line -> line.startsWith("cache_size{cache=\"releases\"") && line.endsWith(" 1.0"));
            Files.delete(evidence);

            HttpResponse<byte[]> document = restarted.get(base + "1.0.0.json");
            assertThat(document.statusCode())
                    .as(new String(document.body(), StandardCharsets.UTF_8))
                    .isEqualTo(200);
            assertThat(JSON.readTree(document.body())).isEqualTo(JSON.readTree(versionDocument));
        }
    }

    @Test
    void aRestartedMirrorServesEverythingItHadWithoutTheOrigin() throws Exception {
        FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
        FakeOrigin.Release release = origin.publish("acme", "kept", "1.0.0", "linux_amd64", "darwin_arm64");
        String base = "/providers/example.test/acme/kept/";
        String archive = base + "terraform-provider-kept_1.0.0_linux_amd64.zip";
        byte[] versionDocument;
        try (MirrorFixture mirror = MirrorFixture.start(tmp.resolve("cache"), origin, Duration.ofMinutes(15))) {
            assertThat(mirror.get(base + "index.json").statusCode()).isEqualTo(200);
            assertThat(mirror.get(archive).statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(10))
                    .until(() ->
                            new String(mirror.get(base + "1.0.0.json").body(), StandardCharsets.UTF_8).contains("h1:"));
            versionDocument = mirror.get(base + "1.0.0.json").body();
        }
        URI deadOrigin = origin.discoveryUrl();
        Path originCa = origin.caCertificate();
        origin.close();

        try (MirrorFixture restarted =
                MirrorFixture.start(tmp.resolve("cache"), originCa, deadOrigin, Duration.ofMinutes(15))) {
            HttpResponse<byte[]> index = restarted.get(base + "index.json");
            assertThat(index.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(index.body()).get("versions").has("1.0.0")).isTrue();
            HttpResponse<byte[]> document = restarted.get(base + "1.0.0.json");
            assertThat(document.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(document.body())).isEqualTo(JSON.readTree(versionDocument));
            HttpResponse<byte[]> zip = restarted.get(archive);
            assertThat(zip.statusCode()).isEqualTo(200);
            assertThat(zip.body()).isEqualTo(release.archives().get("linux_amd64"));

            HttpResponse<byte[]> uncached = restarted.get(base + "terraform-provider-kept_1.0.0_darwin_arm64.zip");
            assertThat(uncached.statusCode()).isEqualTo(502);
            assertThat(JSON.readTree(uncached.body()).get("errors").get(0).asText())
                    .contains("example.test/acme/kept 1.0.0 darwin_arm64")
                    .contains("127.0.0.1:" + deadOrigin.getPort());
        }
    }

    @Test
    void cachedEvidenceThatNoLongerVerifiesIsFetchedAgain() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"))) {
            FakeOrigin.Release release = origin.publish("acme", "altered", "1.0.0", "linux_amd64");
            String document = "/providers/example.test/acme/altered/1.0.0.json";
            try (MirrorFixture mirror = MirrorFixture.start(tmp.resolve("cache"), origin, Duration.ofMinutes(15))) {
                assertThat(mirror.get(document).statusCode()).isEqualTo(200);
            }
            Path stored = tmp.resolve("cache/metadata/example.test/acme/altered/1.0.0/release.json");
            var evidence = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(stored.toFile());
            ((com.fasterxml.jackson.databind.node.ObjectNode)
                            evidence.get("checksums").get(0))
                    .put(
                            "sums",
                            java.util.Base64.getEncoder()
                                    .encodeToString(("0".repeat(64) + "  " + release.fileName("linux_amd64") + "\n")
                                            .getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            JSON.writeValue(stored.toFile(), evidence);
            int downloadsBefore = origin.requestsMatching("/v1/providers/acme/altered/1.0.0/download/.*");

            try (MirrorFixture restarted = MirrorFixture.start(tmp.resolve("cache"), origin, Duration.ofMinutes(15))) {
                HttpResponse<byte[]> response = restarted.get(document);
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(JSON.readTree(response.body())
                                .at("/archives/linux_amd64/hashes/0")
                                .asText())
                        .isEqualTo("zh:" + release.sha256("linux_amd64"));
                assertThat(origin.requestsMatching("/v1/providers/acme/altered/1.0.0/download/.*"))
                        .isGreaterThan(downloadsBefore);
            }
        }
    }

    @Test
    void evidenceOnDiskRewrittenToClaimAParentMirrorIsNotTrustedAfterARestart() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                FakeOrigin attacker = FakeOrigin.start(origin.certificates())) {
            FakeOrigin.Release release = origin.publish(
                    "acme", "rewritten", "1.0.0", FakeOrigin.Tamper.NONE, 5_000, "linux_amd64", "darwin_arm64");
            String base = "/providers/example.test/acme/rewritten/";
            try (MirrorFixture mirror = MirrorFixture.start(tmp.resolve("cache"), origin, Duration.ofMinutes(15))) {
                assertThat(mirror.get(base + "1.0.0.json").statusCode()).isEqualTo(200);
            }
            // Someone who can write the metadata turns the evidence into "a parent mirror said so", with hashes and a
            // download URL of his own; this host has no mirrorUrl.
            byte[] fake = io.providermirror.testkit.ProviderZips.provider("rewritten", "1.0.0", "darwin_arm64", 777);
            attacker.wireMock()
                    .stubFor(get(urlEqualTo("/fake.zip")).willReturn(aResponse().withBody(fake)));
            var document = JSON.createObjectNode();
            var archives = document.putObject("archives");
            for (String platform : java.util.List.of("linux_amd64", "darwin_arm64")) {
                archives.putObject(platform)
                        .put("url", attacker.discoveryUrl() + "fake.zip")
                        .putArray("hashes")
                        .add("zh:" + FakeOrigin.hex(fake));
            }
            var evidence = JSON.createObjectNode();
            evidence.putArray("downloads");
            evidence.putArray("checksums");
            evidence.putObject("parentMirror")
                    .put("url", attacker.discoveryUrl() + "example.test/acme/rewritten/1.0.0.json")
                    .put("document", JSON.writeValueAsBytes(document));
            JSON.writeValue(
                    tmp.resolve("cache/metadata/example.test/acme/rewritten/1.0.0/release.json")
                            .toFile(),
                    evidence);

            try (MirrorFixture restarted = MirrorFixture.start(tmp.resolve("cache"), origin, Duration.ofMinutes(15))) {
                HttpResponse<byte[]> response = restarted.get(base + "1.0.0.json");
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(new String(response.body(), java.nio.charset.StandardCharsets.UTF_8))
                        .contains("zh:" + release.sha256("darwin_arm64"))
                        .doesNotContain(FakeOrigin.hex(fake));
                HttpResponse<byte[]> archive =
                        restarted.get(base + "terraform-provider-rewritten_1.0.0_darwin_arm64.zip");
                assertThat(archive.statusCode()).isEqualTo(200);
                assertThat(archive.body()).isEqualTo(release.archives().get("darwin_arm64"));
            }
            assertThat(attacker.requestsMatching("/fake.zip")).isZero();
        }
    }

    @Test
    void offlineServesTheCacheAndNeverContactsAnOrigin() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"))) {
            FakeOrigin.Release release = origin.publish("acme", "island", "1.0.0", "linux_amd64");
            String base = "/providers/example.test/acme/island/";
            String archive = base + "terraform-provider-island_1.0.0_linux_amd64.zip";
            try (MirrorFixture online = MirrorFixture.start(tmp.resolve("cache"), origin, Duration.ofMinutes(15))) {
                assertThat(online.get(base + "1.0.0.json").statusCode()).isEqualTo(200);
                assertThat(online.get(archive).statusCode()).isEqualTo(200);
            }
            origin.wireMock().resetRequests();
            try (MirrorFixture offline = MirrorFixture.start(
                    tmp.resolve("cache"), origin.caCertificate(), origin.discoveryUrl(), Duration.ZERO, true)) {
                for (int i = 0; i < 3; i++) {
                    assertThat(offline.get(base + "index.json").statusCode()).isEqualTo(200);
                }
                assertThat(offline.get(base + "1.0.0.json").statusCode()).isEqualTo(200);
                assertThat(offline.get(archive).body())
                        .isEqualTo(release.archives().get("linux_amd64"));
                HttpResponse<byte[]> missing = offline.get("/providers/example.test/acme/elsewhere/index.json");
                assertThat(missing.statusCode()).isEqualTo(404);
                assertThat(JSON.readTree(missing.body()).get("errors").get(0).asText())
                        .contains("upstream.offline");
                assertThat(offline.get(base + "terraform-provider-island_1.0.0_darwin_arm64.zip")
                                .statusCode())
                        .isEqualTo(404);
                assertThat(new String(offline.get("/").body(), java.nio.charset.StandardCharsets.UTF_8))
                        .as("the status page says so at the top")
                        .contains("<p class=\"offline\" id=\"offline\"><b>OFFLINE</b>");
                assertThat(JSON.readTree(offline.get("/status.json").body())
                                .get("offline")
                                .asBoolean())
                        .isTrue();
            }
            assertThat(origin.wireMock().getAllServeEvents())
                    .as("no request reached the origin")
                    .isEmpty();
        }
    }

    @Test
    void archivesAlteredOrTruncatedOnDiskAreNeverServedAndAreFetchedAgain() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"))) {
            FakeOrigin.Release release = origin.publish("acme", "rot", "1.0.0", "linux_amd64", "darwin_arm64");
            String linux = "/providers/example.test/acme/rot/terraform-provider-rot_1.0.0_linux_amd64.zip";
            String darwin = "/providers/example.test/acme/rot/terraform-provider-rot_1.0.0_darwin_arm64.zip";
            Path cached = tmp.resolve(
                    "cache/archives/example.test/acme/rot/1.0.0/terraform-provider-rot_1.0.0_linux_amd64.zip");
            try (MirrorFixture mirror = MirrorFixture.start(tmp.resolve("cache"), origin, Duration.ofMinutes(15))) {
                assertThat(mirror.get(linux).statusCode()).isEqualTo(200);
                assertThat(mirror.get(darwin).statusCode()).isEqualTo(200);
                // Truncation is caught by the size check on every read, without a restart.
                byte[] genuine = java.nio.file.Files.readAllBytes(cached);
                java.nio.file.Files.write(cached, java.util.Arrays.copyOf(genuine, genuine.length - 10));
                assertThat(mirror.get(linux).body())
                        .isEqualTo(release.archives().get("linux_amd64"));
                assertThat(origin.archiveDownloads(release, "linux_amd64")).isEqualTo(2);
            }
            // Same-size alteration is caught by the full hash on the first serve after start-up.
            byte[] bytes = java.nio.file.Files.readAllBytes(cached);
            bytes[bytes.length / 2] ^= 0x01;
            java.nio.file.Files.write(cached, bytes);
            try (MirrorFixture restarted = MirrorFixture.start(tmp.resolve("cache"), origin, Duration.ofMinutes(15))) {
                assertThat(restarted.get(linux).body())
                        .isEqualTo(release.archives().get("linux_amd64"));
                assertThat(origin.archiveDownloads(release, "linux_amd64")).isEqualTo(3);
                assertThat(restarted.get(darwin).statusCode()).isEqualTo(200);
                assertThat(origin.archiveDownloads(release, "darwin_arm64")).isEqualTo(1);
            }
        }
    }

    @Test
    void verifyCacheAtStartUpRemovesAlteredArchivesBeforeServing() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"))) {
            origin.publish("acme", "audit", "1.0.0", "linux_amd64");
            try (MirrorFixture mirror = MirrorFixture.start(tmp.resolve("cache"), origin, Duration.ofMinutes(15))) {
                assertThat(mirror.get(
                                        "/providers/example.test/acme/audit/terraform-provider-audit_1.0.0_linux_amd64.zip")
                                .statusCode())
                        .isEqualTo(200);
            }
            Path cached = tmp.resolve(
                    "cache/archives/example.test/acme/audit/1.0.0/terraform-provider-audit_1.0.0_linux_amd64.zip");
            byte[] bytes = java.nio.file.Files.readAllBytes(cached);
            bytes[0] ^= 0x01;
            java.nio.file.Files.write(cached, bytes);
            var config = MirrorFixture.builder(tmp.resolve("cache"), origin).config();
            try (MirrorApplication verified = MirrorApplication.start(config, java.time.Clock.systemUTC(), true)) {
                assertThat(verified.port()).isPositive();
                assertThat(cached).doesNotExist();
            }
        }
    }

    @Test
    void withNothingCachedADownOriginIsA502NamingIt() throws Exception {
        FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
        URI deadOrigin = origin.discoveryUrl();
        origin.close();
        try (MirrorFixture mirror = MirrorFixture.start(
                tmp.resolve("cache"), tmp.resolve("origin/origin-ca.pem"), deadOrigin, Duration.ofMinutes(15))) {
            HttpResponse<byte[]> response = mirror.get("/providers/example.test/acme/gone/index.json");
            assertThat(response.statusCode()).isEqualTo(502);
            assertThat(JSON.readTree(response.body()).get("errors").get(0).asText())
                    .contains("example.test")
                    .contains("127.0.0.1:" + deadOrigin.getPort());
        }
    }

    @Test
    void staleListsAreRefreshedInTheBackgroundAndTheLastGoodOneOutlivesOriginFailures() throws Exception {
        String index = "/providers/example.test/acme/fresh/index.json";
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"))) {
            try (MirrorFixture mirror = MirrorFixture.start(tmp.resolve("cache"), origin, Duration.ZERO)) {
                origin.publish("acme", "fresh", "1.0.0", "linux_amd64");
                assertThat(JSON.readTree(mirror.get(index).body())
                                .get("versions")
                                .has("1.0.0"))
                        .isTrue();

                origin.publish("acme", "fresh", "2.0.0", "linux_amd64");
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> JSON.readTree(mirror.get(index).body())
                                .get("versions")
                                .has("2.0.0"));

                origin.wireMock()
                        .stubFor(get(urlEqualTo("/v1/providers/acme/fresh/versions"))
                                .willReturn(aResponse().withStatus(500)));
                servesTheLastGoodListOnceARefreshHasFailed(mirror, index);
            }
            // After a restart the list comes from the cache directory, stale at once; the origin still fails.
            try (MirrorFixture restarted = MirrorFixture.start(tmp.resolve("cache"), origin, Duration.ZERO)) {
                servesTheLastGoodListOnceARefreshHasFailed(restarted, index);
            }
        }
    }

    /**
     * Asks until a background refresh of the stale list has failed (all its attempts: the mirror logs it then),
     * which a refresh begun before the origin broke would not; from then on the last good list must be the answer.
     */
    private void servesTheLastGoodListOnceARefreshHasFailed(MirrorFixture mirror, String index) throws Exception {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(log);
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                assertServesTheLastGoodList(mirror.get(index));
                synchronized (log) {
                    return log.list.stream()
                            .anyMatch(line -> line.getFormattedMessage()
                                    .startsWith("refreshing the version list of example.test/acme/fresh failed"));
                }
            });
        } finally {
            root.detachAppender(log);
        }
        for (int i = 0; i < 5; i++) {
            assertServesTheLastGoodList(mirror.get(index));
        }
    }

    private static void assertServesTheLastGoodList(HttpResponse<byte[]> response) throws Exception {
        assertThat(response.statusCode())
                .as(new String(response.body(), java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo(200);
        assertThat(JSON.readTree(response.body()).get("versions").has("2.0.0")).isTrue();
    }

    @Test
    void withinTheTtlTheOriginIsNotAskedAgain() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.start(tmp.resolve("cache"), origin, Duration.ofMinutes(15))) {
            origin.publish("acme", "steady", "1.0.0", "linux_amd64");
            for (int i = 0; i < 5; i++) {
                assertThat(mirror.get("/providers/example.test/acme/steady/index.json")
                                .statusCode())
                        .isEqualTo(200);
                assertThat(mirror.get("/providers/example.test/acme/steady/1.0.0.json")
                                .statusCode())
                        .isEqualTo(200);
            }
            assertThat(origin.requestsMatching("/v1/providers/acme/steady/versions"))
                    .isEqualTo(1);
            assertThat(origin.requestsMatching("/v1/providers/acme/steady/1.0.0/download/.*"))
                    .isEqualTo(1);
            assertThat(origin.requestsMatching("/.well-known/terraform.json")).isEqualTo(1);
        }
    }

    @Test
    void versionListsHeavierThanTheMemoryBudgetAreNotKeptInMemory() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                        .set("cache.metadataMemory", "1MiB")
                        .start()) {
            origin.publish("acme", "small", "1.0.0", "linux_amd64");
            StringBuilder versions = new StringBuilder("{\"versions\":[");
            for (int i = 0; i < 5_000; i++) {
                versions.append(i == 0 ? "" : ",")
                        .append("{\"version\":\"1.")
                        .append(i)
                        .append(".0\",\"platforms\":[{\"os\":\"linux\",\"arch\":\"amd64\"}]}");
            }
            origin.wireMock()
                    .stubFor(get(urlEqualTo("/v1/providers/acme/huge/versions"))
                            .willReturn(aResponse()
                                    .withHeader("Content-Type", "application/json")
                                    .withBody(versions.append("]}").toString())));
            for (String type : java.util.List.of("small", "huge")) {
                assertThat(mirror.get("/providers/example.test/acme/" + type + "/index.json")
                                .statusCode())
                        .isEqualTo(200);
                // Take the list away from the cache directory: only memory can answer without the origin now.
                java.nio.file.Files.delete(tmp.resolve("cache/metadata/example.test/acme/" + type + "/versions.json"));
                HttpResponse<byte[]> again = mirror.get("/providers/example.test/acme/" + type + "/index.json");
                assertThat(again.statusCode()).isEqualTo(200);
            }

            assertThat(origin.requestsMatching("/v1/providers/acme/small/versions"))
                    .as("a small list stays in memory")
                    .isEqualTo(1);
            // About 1.7 MB estimated against 0.5 MiB for lists: never kept, so it had to be fetched again.
            assertThat(origin.requestsMatching("/v1/providers/acme/huge/versions"))
                    .as("a huge list is not kept")
                    .isEqualTo(2);
        }
    }
}
