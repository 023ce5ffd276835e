package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.providermirror.testkit.FakeOrigin;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole mirror with an S3-compatible bucket as its cache of record (S3Proxy on loopback): it serves a provider
 * end to end, a new instance on a fresh cache directory serves it from the bucket without the origin, and with the
 * bucket stopped warm archives still come from the local tier while cold ones get a 503 naming the bucket.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class BucketCacheTest {

    @RegisterExtension
    static final MirrorBucket bucket = MirrorBucket.named("mirror");

    @TempDir
    Path tmp;

    private static MirrorFixture.Builder onBucket(Path cache, FakeOrigin origin, String prefix) {
        return bucket.mirror(cache, origin, prefix).withManagement();
    }

    private static String readiness(MirrorFixture mirror) throws Exception {
        return management(mirror, "/readyz");
    }

    private static String management(MirrorFixture mirror, String path) throws Exception {
        return mirror.management(path).body();
    }

    @Test
    void aNewInstanceOnAFreshDirectoryServesFromTheBucketWithoutTheOrigin() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-a"))) {
            FakeOrigin.Release release = origin.publish("acme", "shared", "1.0.0", "linux_amd64");
            String base = "/providers/example.test/acme/shared/";
            String archive = base + "terraform-provider-shared_1.0.0_linux_amd64.zip";
            String document;
            try (MirrorFixture first =
                    onBucket(tmp.resolve("cache-a1"), origin, "a/").start()) {
                assertThat(first.get(base + "index.json").statusCode()).isEqualTo(200);
                HttpResponse<byte[]> zip = first.get(archive);
                assertThat(zip.statusCode()).isEqualTo(200);
                assertThat(zip.body()).isEqualTo(release.archives().get("linux_amd64"));
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> new String(first.get(base + "1.0.0.json").body(), StandardCharsets.UTF_8)
                                .contains("h1:"));
                document = new String(first.get(base + "1.0.0.json").body(), StandardCharsets.UTF_8);
                assertThat(readiness(first)).contains("\"store\":\"reachable\"");
                assertThat(first.get(archive).body())
                        .as("again, from the local tier")
                        .isEqualTo(release.archives().get("linux_amd64"));
                String metrics = management(first, "/metrics");
                assertThat(metrics)
                        .contains("mirror_store_requests_seconds_count{operation=\"put\",outcome=\"ok\"}")
                        .contains("mirror_store_requests_seconds_count{operation=\"copy\",outcome=\"ok\"}")
                        .containsPattern("mirror_store_local_tier_hits_total [1-9]");
            }
            int originRequests = origin.requestsMatching(".*");

            try (MirrorFixture second =
                    onBucket(tmp.resolve("cache-a2"), origin, "a/").start()) {
                assertThat(second.get(base + "index.json").statusCode()).isEqualTo(200);
                assertThat(new String(second.get(base + "1.0.0.json").body(), StandardCharsets.UTF_8))
                        .isEqualTo(document);
                HttpResponse<byte[]> zip = second.get(archive);
                assertThat(zip.statusCode()).isEqualTo(200);
                assertThat(zip.body()).isEqualTo(release.archives().get("linux_amd64"));
            }
            assertThat(origin.requestsMatching(".*"))
                    .as("no request to the origin")
                    .isEqualTo(originRequests);
        }
    }

    @Test
    void withTheBucketStoppedWarmArchivesAreServedAndColdOnesGetA503NamingTheBucket() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-b"));
                MirrorFixture mirror =
                        onBucket(tmp.resolve("cache-b"), origin, "b/").start()) {
            FakeOrigin.Release release = origin.publish("acme", "outage", "1.0.0", "linux_amd64", "darwin_arm64");
            String base = "/providers/example.test/acme/outage/";
            String warm = base + "terraform-provider-outage_1.0.0_linux_amd64.zip";
            String cold = base + "terraform-provider-outage_1.0.0_darwin_arm64.zip";
            assertThat(mirror.get(base + "1.0.0.json").statusCode()).isEqualTo(200);
            assertThat(mirror.get(warm).statusCode()).isEqualTo(200);

            bucket.server().stop();
            try {
                HttpResponse<byte[]> fromTier = mirror.get(warm);
                assertThat(fromTier.statusCode()).isEqualTo(200);
                assertThat(fromTier.body()).isEqualTo(release.archives().get("linux_amd64"));

                HttpResponse<byte[]> refused = mirror.get(cold);
                assertThat(refused.statusCode()).isIn(503, 504);
                assertThat(MirrorFixture.error(refused)).contains("S3 bucket 'mirror'");
                assertThat(readiness(mirror)).contains("\"store\":\"unreachable: ");
            } finally {
                bucket.server().start();
            }
            HttpResponse<byte[]> afterwards = mirror.get(cold);
            assertThat(afterwards.statusCode()).isEqualTo(200);
            assertThat(afterwards.body()).isEqualTo(release.archives().get("darwin_arm64"));
        }
    }

    @Test
    void anInstanceRestartedWhileTheBucketIsDownRefusesToStartAndStartsOnceItAnswers() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-d"))) {
            FakeOrigin.Release release = origin.publish("acme", "restart", "1.0.0", "linux_amd64");
            String base = "/providers/example.test/acme/restart/";
            String archive = base + "terraform-provider-restart_1.0.0_linux_amd64.zip";
            MirrorFixture.Builder instance = onBucket(tmp.resolve("cache-d"), origin, "d/");
            try (MirrorFixture first = instance.start()) {
                assertThat(first.get(base + "1.0.0.json").statusCode()).isEqualTo(200);
                assertThat(first.get(archive).statusCode()).isEqualTo(200);
            }

            bucket.server().stop();
            try {
                assertThatThrownBy(instance::start)
                        .as("its local copies and tier are there, but not the cache of record")
                        .hasMessageContaining("cache.s3.endpoint: cannot reach "
                                + bucket.server().endpoint());
            } finally {
                bucket.server().start();
            }
            int originRequests = origin.requestsMatching(".*");
            try (MirrorFixture again = instance.start()) {
                assertThat(again.get(base + "index.json").statusCode()).isEqualTo(200);
                assertThat(again.get(archive).body())
                        .isEqualTo(release.archives().get("linux_amd64"));
            }
            assertThat(origin.requestsMatching(".*")).isEqualTo(originRequests);
        }
    }

    @Test
    void aRunningInstanceWhoseListIsNotInMemoryAnswersFromItsLocalCopyWhileTheBucketIsDown() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-e"));
                MirrorFixture mirror = onBucket(tmp.resolve("cache-e"), origin, "e/")
                        .set("cache.metadataMemory", "1MiB")
                        .start()) {
            FakeOrigin.Release release = origin.publish("acme", "huge", "1.0.0", "linux_amd64");
            // A list far heavier than the 0.5 MiB that version lists get: never kept in memory.
            StringBuilder versions = new StringBuilder(
                    "{\"versions\":[{\"version\":\"1.0.0\",\"platforms\":[{\"os\":\"linux\",\"arch\":\"amd64\"}]}");
            for (int i = 1; i < 5_000; i++) {
                versions.append(",{\"version\":\"0.")
                        .append(i)
                        .append(".0\",\"platforms\":[{\"os\":\"linux\",\"arch\":\"amd64\"}]}");
            }
            origin.wireMock()
                    .stubFor(com.github.tomakehurst.wiremock.client.WireMock.get(
                                    com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo(
                                            "/v1/providers/acme/huge/versions"))
                            .willReturn(com.github.tomakehurst.wiremock.client.WireMock.aResponse()
                                    .withHeader("Content-Type", "application/json")
                                    .withBody(versions.append("]}").toString())));
            String base = "/providers/example.test/acme/huge/";
            String archive = base + "terraform-provider-huge_1.0.0_linux_amd64.zip";
            HttpResponse<byte[]> index = mirror.get(base + "index.json");
            assertThat(index.statusCode()).isEqualTo(200);
            assertThat(mirror.get(base + "1.0.0.json").statusCode()).isEqualTo(200);
            assertThat(mirror.get(archive).statusCode()).isEqualTo(200);
            int listRequests = origin.requestsMatching("/v1/providers/acme/huge/versions");

            bucket.server().stop();
            try {
                HttpResponse<byte[]> fromCopy = mirror.get(base + "index.json");
                assertThat(fromCopy.statusCode()).isEqualTo(200);
                assertThat(fromCopy.body()).isEqualTo(index.body());
                assertThat(mirror.get(base + "1.0.0.json").statusCode()).isEqualTo(200);
                assertThat(mirror.get(archive).body())
                        .isEqualTo(release.archives().get("linux_amd64"));
                assertThat(management(mirror, "/metrics")).containsPattern("mirror_store_local_copy_reads_total [1-9]");
            } finally {
                bucket.server().start();
            }
            assertThat(origin.requestsMatching("/v1/providers/acme/huge/versions"))
                    .as("the list came from the local copy, not from the origin")
                    .isEqualTo(listRequests);
        }
    }

    @Test
    void aBucketThatDoesNotExistIsAStartUpErrorNamingTheKey() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-c"))) {
            MirrorFixture.Builder builder =
                    onBucket(tmp.resolve("cache-c"), origin, "").set("cache.s3.bucket", "no-such-bucket");
            assertThatThrownBy(builder::start)
                    .hasMessageContaining("cache.s3.bucket")
                    .hasMessageContaining("no-such-bucket")
                    .hasMessageContaining("does not exist");
        }
    }
}
