package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.upstream.verify.PackageHashes;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The mirror protocol, whole server on a random port, against a signed fake origin. */
final class PullThroughTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;

    @RegisterExtension
    static final MirrorExtension fixture = MirrorExtension.withDefaults();

    private static JsonNode json(HttpResponse<byte[]> response) throws IOException {
        assertThat(response.headers().firstValue("content-type")).contains("application/json");
        return JSON.readTree(response.body());
    }

    @Test
    void indexListsEveryVersionTheOriginLists() throws Exception {
        fixture.origin().publish("acme", "listed", "1.0.0", "linux_amd64");
        fixture.origin().publish("acme", "listed", "1.1.0", "linux_amd64");
        HttpResponse<byte[]> response =
                fixture.mirror().get(fixture.mirror().providerPath("acme", "listed") + "index.json");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(json(response).get("versions").fieldNames())
                .toIterable()
                .containsExactlyInAnyOrder("1.0.0", "1.1.0");
        assertThat(json(response).get("versions").get("1.0.0").isEmpty()).isTrue();
    }

    @Test
    void versionDocumentListsEveryPlatformWithSignedHashesAndDownloadsNoArchive() throws Exception {
        FakeOrigin.Release release =
                fixture.origin().publish("acme", "docs", "2.0.0", "linux_amd64", "darwin_arm64", "windows_amd64");
        HttpResponse<byte[]> response =
                fixture.mirror().get(fixture.mirror().providerPath("acme", "docs") + "2.0.0.json");
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode archives = json(response).get("archives");
        assertThat(archives.fieldNames()).toIterable().containsExactly("darwin_arm64", "linux_amd64", "windows_amd64");
        for (String platform : List.of("linux_amd64", "darwin_arm64", "windows_amd64")) {
            assertThat(archives.get(platform).get("url").asText())
                    .isEqualTo("terraform-provider-docs_2.0.0_" + platform + ".zip");
            assertThat(archives.get(platform).get("hashes"))
                    .extracting(JsonNode::asText)
                    .containsExactly("zh:" + release.sha256(platform));
        }
        assertThat(fixture.origin().requestsMatching("/files/acme/docs/.*\\.zip"))
                .isZero();
    }

    @Test
    void coldArchiveIsStreamedVerifiedCachedAndThenServedFromDisk() throws Exception {
        FakeOrigin.Release release = fixture.origin().publish("acme", "cold", "1.0.0", "linux_amd64");
        String path = fixture.mirror().providerPath("acme", "cold") + "terraform-provider-cold_1.0.0_linux_amd64.zip";
        byte[] genuine = release.archives().get("linux_amd64");

        HttpResponse<byte[]> cold = fixture.mirror().get(path);
        assertThat(cold.statusCode()).isEqualTo(200);
        assertThat(cold.body()).isEqualTo(genuine);
        assertThat(cold.headers().firstValue("content-type")).contains("application/zip");

        HttpResponse<byte[]> warm = fixture.mirror().get(path);
        assertThat(warm.statusCode()).isEqualTo(200);
        assertThat(warm.body()).isEqualTo(genuine);
        assertThat(warm.headers().firstValue("etag")).contains("\"" + release.sha256("linux_amd64") + "\"");
        assertThat(warm.headers().firstValue("content-length")).contains(String.valueOf(genuine.length));
        assertThat(warm.headers().firstValue("last-modified")).isPresent();
        assertThat(warm.headers().firstValue("accept-ranges")).contains("bytes");
        assertThat(fixture.origin().archiveDownloads(release, "linux_amd64")).isEqualTo(1);

        Path zip = Files.write(tmp.resolve("cold.zip"), genuine);
        String h1 = PackageHashes.h1(zip);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(
                                json(fixture.mirror().get(fixture.mirror().providerPath("acme", "cold") + "1.0.0.json"))
                                        .at("/archives/linux_amd64/hashes"))
                        .extracting(JsonNode::asText)
                        .containsExactly(h1, "zh:" + release.sha256("linux_amd64")));
    }

    @Test
    void warmArchivesAnswerRangesAndHead() throws Exception {
        FakeOrigin.Release release = fixture.origin().publish("acme", "ranged", "1.0.0", "linux_amd64");
        String path =
                fixture.mirror().providerPath("acme", "ranged") + "terraform-provider-ranged_1.0.0_linux_amd64.zip";
        byte[] genuine = release.archives().get("linux_amd64");
        assertThat(fixture.mirror().get(path).statusCode()).isEqualTo(200);

        HttpResponse<byte[]> partial = fixture.mirror()
                .send(HttpRequest.newBuilder(fixture.mirror().url(path))
                        .header("Range", "bytes=10-19")
                        .build());
        assertThat(partial.statusCode()).isEqualTo(206);
        assertThat(partial.body()).isEqualTo(java.util.Arrays.copyOfRange(genuine, 10, 20));
        assertThat(partial.headers().firstValue("content-range")).contains("bytes 10-19/" + genuine.length);

        HttpResponse<byte[]> outside = fixture.mirror()
                .send(HttpRequest.newBuilder(fixture.mirror().url(path))
                        .header("Range", "bytes=" + genuine.length + "-")
                        .build());
        assertThat(outside.statusCode()).isEqualTo(416);
        assertThat(outside.headers().firstValue("content-range")).contains("bytes */" + genuine.length);

        HttpResponse<byte[]> head = fixture.mirror().head(path);
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(head.headers().firstValue("content-length")).contains(String.valueOf(genuine.length));
    }

    /**
     * A small archive served from the cache a second time is held in memory: from then on it is answered without
     * its file (here removed by hand, and the origin is not asked again), ranges included, from the same bytes.
     */
    @Test
    void aSmallWarmArchiveIsAnsweredFromMemoryRangesIncluded() throws Exception {
        FakeOrigin.Release release = fixture.origin().publish("acme", "held", "1.0.0", "linux_amd64");
        String name = "terraform-provider-held_1.0.0_linux_amd64.zip";
        String path = fixture.mirror().providerPath("acme", "held") + name;
        byte[] genuine = release.archives().get("linux_amd64");
        for (int i = 0; i < 3; i++) {
            assertThat(fixture.mirror().get(path).body()).isEqualTo(genuine);
        }
        try (java.util.stream.Stream<Path> files = Files.walk(fixture.mirror().cacheDirectory)) {
            Path file = files.filter(p -> p.getFileName().toString().equals(name))
                    .findFirst()
                    .orElseThrow();
            Files.delete(file);
        }

        HttpResponse<byte[]> partial = fixture.mirror()
                .send(HttpRequest.newBuilder(fixture.mirror().url(path))
                        .header("Range", "bytes=10-19")
                        .build());
        assertThat(partial.statusCode()).isEqualTo(206);
        assertThat(partial.body()).isEqualTo(java.util.Arrays.copyOfRange(genuine, 10, 20));
        assertThat(fixture.mirror().get(path).body()).isEqualTo(genuine);
        assertThat(fixture.origin().archiveDownloads(release, "linux_amd64")).isEqualTo(1);
    }

    @Test
    void headOnAColdArchiveAnswersWithItsLength() throws Exception {
        FakeOrigin.Release release = fixture.origin().publish("acme", "headcold", "1.0.0", "linux_amd64");
        String path =
                fixture.mirror().providerPath("acme", "headcold") + "terraform-provider-headcold_1.0.0_linux_amd64.zip";
        HttpResponse<byte[]> head = fixture.mirror().head(path);
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.headers().firstValue("content-length"))
                .contains(String.valueOf(release.archives().get("linux_amd64").length));
        assertThat(fixture.mirror().get(path).body())
                .isEqualTo(release.archives().get("linux_amd64"));
        assertThat(fixture.origin().archiveDownloads(release, "linux_amd64")).isEqualTo(1);
    }

    @Test
    void anArchiveStreamedWithoutALengthIsRelayedChunked() throws Exception {
        FakeOrigin.Release release =
                fixture.origin().publish("acme", "chunked", "1.0.0", FakeOrigin.Tamper.NONE, 300_000, "linux_amd64");
        byte[] genuine = release.archives().get("linux_amd64");
        fixture.origin().serveSlowly(release, "linux_amd64", 5, 200);
        String path =
                fixture.mirror().providerPath("acme", "chunked") + "terraform-provider-chunked_1.0.0_linux_amd64.zip";
        HttpResponse<byte[]> response = fixture.mirror().get(path);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-length")).isEmpty();
        assertThat(response.body()).isEqualTo(genuine);
        assertThat(fixture.mirror().get(path).headers().firstValue("content-length"))
                .contains(String.valueOf(genuine.length));
    }

    @Test
    void concurrentClientsOfAColdArchiveShareOneOriginDownload() throws Exception {
        FakeOrigin.Release release =
                fixture.origin().publish("acme", "crowd", "1.0.0", FakeOrigin.Tamper.NONE, 5_000_000, "linux_amd64");
        fixture.origin().serveSlowly(release, "linux_amd64", 20, 1_000);
        String path = fixture.mirror().providerPath("acme", "crowd") + "terraform-provider-crowd_1.0.0_linux_amd64.zip";
        assertThat(fixture.mirror()
                        .get(fixture.mirror().providerPath("acme", "crowd") + "1.0.0.json")
                        .statusCode())
                .isEqualTo(200);
        int clients = 16;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(clients);
        try {
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            List<java.util.concurrent.Future<HttpResponse<byte[]>>> responses = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                responses.add(pool.submit(() -> {
                    go.await();
                    return fixture.mirror().get(path);
                }));
            }
            go.countDown();
            for (var response : responses) {
                HttpResponse<byte[]> r = response.get(60, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).isEqualTo(release.archives().get("linux_amd64"));
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(fixture.origin().archiveDownloads(release, "linux_amd64")).isEqualTo(1);
    }

    @Test
    void aClientThatDisconnectsMidStreamDoesNotStopTheDownload() throws Exception {
        FakeOrigin.Release release =
                fixture.origin().publish("acme", "leaver", "1.0.0", FakeOrigin.Tamper.NONE, 2_000_000, "linux_amd64");
        fixture.origin().serveSlowly(release, "linux_amd64", 10, 1_000);
        String path =
                fixture.mirror().providerPath("acme", "leaver") + "terraform-provider-leaver_1.0.0_linux_amd64.zip";
        HttpResponse<java.io.InputStream> response = fixture.mirror()
                .client
                .send(
                        HttpRequest.newBuilder(fixture.mirror().url(path)).build(),
                        HttpResponse.BodyHandlers.ofInputStream());
        try (java.io.InputStream body = response.body()) {
            assertThat(body.readNBytes(1000)).hasSize(1000);
        }
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            HttpResponse<byte[]> warm = fixture.mirror().head(path);
            assertThat(warm.headers().firstValue("etag")).contains("\"" + release.sha256("linux_amd64") + "\"");
        });
        assertThat(fixture.mirror().get(path).body())
                .isEqualTo(release.archives().get("linux_amd64"));
        assertThat(fixture.origin().archiveDownloads(release, "linux_amd64")).isEqualTo(1);
    }

    @Test
    void aTamperedArchiveIsNeverDeliveredNorCached() throws Exception {
        FakeOrigin.Release release = fixture.origin()
                .publish("acme", "tampered", "1.0.0", FakeOrigin.Tamper.ARCHIVE_BYTES, 0, "linux_amd64");
        String path =
                fixture.mirror().providerPath("acme", "tampered") + "terraform-provider-tampered_1.0.0_linux_amd64.zip";
        for (int attempt = 0; attempt < 2; attempt++) {
            // Depending on timing the client sees an aborted stream or, when the fill failed before the
            // response started, a 502 naming the check; never a complete 200.
            try {
                HttpResponse<byte[]> response = fixture.mirror().get(path);
                assertThat(response.statusCode()).isEqualTo(502);
                assertThat(json(response).get("errors").get(0).asText()).contains("signed SHA256SUMS");
            } catch (IOException aborted) {
                assertThat(aborted).isNotNull();
            }
        }
        assertThat(fixture.origin().archiveDownloads(release, "linux_amd64"))
                .as("nothing was cached")
                .isEqualTo(2);
        try (var files = Files.walk(fixture.mirror().cacheDirectory.resolve("archives"))) {
            assertThat(files.filter(p -> p.toString().contains("tampered") && Files.isRegularFile(p)))
                    .isEmpty();
        }
    }

    @Test
    void aTamperedArchiveStreamedSlowlyIsAbortedMidStream() throws Exception {
        FakeOrigin.Release release = fixture.origin()
                .publish("acme", "slowtamper", "1.0.0", FakeOrigin.Tamper.ARCHIVE_BYTES, 300_000, "linux_amd64");
        byte[] tampered = fixture.origin().serveTamperedSlowly(release, "linux_amd64", 10, 1_000);
        String path = fixture.mirror().providerPath("acme", "slowtamper")
                + "terraform-provider-slowtamper_1.0.0_linux_amd64.zip";
        HttpResponse<java.io.InputStream> response = fixture.mirror()
                .client
                .send(
                        HttpRequest.newBuilder(fixture.mirror().url(path)).build(),
                        HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        byte[] buffer = new byte[8192];
        java.util.concurrent.atomic.AtomicLong received = new java.util.concurrent.atomic.AtomicLong();
        try (java.io.InputStream body = response.body()) {
            assertThatThrownBy(() -> {
                        int n;
                        while ((n = body.read(buffer)) >= 0) {
                            received.addAndGet(n);
                        }
                        throw new AssertionError("the body completed after " + received.get() + " bytes");
                    })
                    .isInstanceOf(IOException.class);
        }
        assertThat(received.get())
                .as("bytes were streamed before the abort")
                .isPositive()
                .isLessThan(tampered.length);
        assertThat(fixture.mirror()
                        .get(fixture.mirror().providerPath("acme", "slowtamper") + "1.0.0.json")
                        .body())
                .asString()
                .doesNotContain("h1:");
    }

    @Test
    void aWrongSignatureRefusesTheVersionDocument() throws Exception {
        fixture.origin().publish("acme", "unsigned", "1.0.0", FakeOrigin.Tamper.WRONG_SIGNING_KEY, 0, "linux_amd64");
        HttpResponse<byte[]> response =
                fixture.mirror().get(fixture.mirror().providerPath("acme", "unsigned") + "1.0.0.json");
        assertThat(response.statusCode()).isEqualTo(502);
        assertThat(json(response).get("errors").get(0).asText())
                .contains("example.test/acme/unsigned 1.0.0 linux_amd64")
                .contains("signature");
        HttpResponse<byte[]> archive = fixture.mirror()
                .get(fixture.mirror().providerPath("acme", "unsigned")
                        + "terraform-provider-unsigned_1.0.0_linux_amd64.zip");
        assertThat(archive.statusCode()).isEqualTo(502);
        assertThat(fixture.origin().requestsMatching("/files/acme/unsigned/.*\\.zip"))
                .isZero();
    }

    @Test
    void unknownProvidersVersionsAndPlatformsAreNotFound() throws Exception {
        fixture.origin().publish("acme", "known", "1.0.0", "linux_amd64");
        HttpResponse<byte[]> provider =
                fixture.mirror().get(fixture.mirror().providerPath("acme", "unknown") + "index.json");
        assertThat(provider.statusCode()).isEqualTo(404);
        assertThat(json(provider).get("errors").get(0).asText()).contains("example.test/acme/unknown");
        assertThat(fixture.mirror()
                        .get(fixture.mirror().providerPath("acme", "known") + "9.9.9.json")
                        .statusCode())
                .isEqualTo(404);
        HttpResponse<byte[]> platform = fixture.mirror()
                .get(fixture.mirror().providerPath("acme", "known") + "terraform-provider-known_1.0.0_plan9_386.zip");
        assertThat(platform.statusCode()).isEqualTo(404);
        assertThat(json(platform).get("errors").get(0).asText()).contains("not available for plan9_386");
    }

    @Test
    void aSlowOriginGivesA504NamingItBeforeTheClientGivesUp() throws Exception {
        fixture.origin()
                .wireMock()
                .stubFor(
                        com.github.tomakehurst.wiremock.client.WireMock.get(
                                        com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo(
                                                "/v1/providers/acme/sluggish/versions"))
                                .willReturn(
                                        com.github.tomakehurst.wiremock.client.WireMock.aResponse()
                                                .withFixedDelay(4_000)
                                                .withHeader("Content-Type", "application/json")
                                                .withBody(
                                                        "{\"versions\":[{\"version\":\"1.0.0\",\"platforms\":[{\"os\":\"linux\",\"arch\":\"amd64\"}]}]}")));
        // The origin answers in 4 s, within upstream.requestTimeout (6 s): only server.metadataTimeout (1 s) can
        // answer the client before the CLI's own ~10 s, and before this origin does.
        try (MirrorFixture sluggish = MirrorFixture.builder(tmp.resolve("sluggish-cache"), fixture.origin())
                .set("server.metadataTimeout", "1s")
                .set("upstream.requestTimeout", "6s")
                .start()) {
            HttpResponse<byte[]> response = sluggish.get(sluggish.providerPath("acme", "sluggish") + "index.json");

            assertThat(response.statusCode())
                    .as(new String(response.body(), java.nio.charset.StandardCharsets.UTF_8))
                    .isEqualTo(504);
            // The answer names server.metadataTimeout's 1000 ms: the mirror answered when it passed, not when the
            // origin did (no elapsed-time bound: how long that takes depends on how busy the machine is).
            assertThat(json(response).get("errors").get(0).asText())
                    .contains("the version list of example.test/acme/sluggish")
                    .contains("127.0.0.1:" + fixture.origin().discoveryUrl().getPort())
                    .contains("did not answer within 1000 ms");
        }
    }

    @Test
    void anOriginSlowerThanItsRequestTimeoutGivesA504NamingIt() throws Exception {
        fixture.origin()
                .wireMock()
                .stubFor(com.github.tomakehurst.wiremock.client.WireMock.get(
                                com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo(
                                        "/v1/providers/acme/slow/versions"))
                        .willReturn(com.github.tomakehurst.wiremock.client.WireMock.aResponse()
                                .withFixedDelay(6_000)
                                .withBody("{\"versions\":[]}")));
        // upstream.requestTimeout (3 s) is half the origin's delay; server.metadataTimeout is the fixture's 60 s.
        try (MirrorFixture impatient = MirrorFixture.builder(tmp.resolve("impatient-cache"), fixture.origin())
                .set("upstream.requestTimeout", "3s")
                .start()) {
            HttpResponse<byte[]> response = impatient.get(impatient.providerPath("acme", "slow") + "index.json");
            assertThat(response.statusCode()).isEqualTo(504);
            assertThat(json(response).get("errors").get(0).asText())
                    .contains("example.test/acme/slow")
                    .contains("127.0.0.1:" + fixture.origin().discoveryUrl().getPort())
                    .contains("did not answer in time");
        }
    }

    @Test
    void unconfiguredHostsOnInternalNetworksAreNeverContacted() throws Exception {
        for (String hostname : List.of("localhost", "127.0.0.2", "169.254.169.254", "10.1.2.3", "192.168.0.1")) {
            HttpResponse<byte[]> response = fixture.mirror().get("/providers/" + hostname + "/acme/probe/index.json");
            assertThat(response.statusCode()).as(hostname).isEqualTo(403);
            assertThat(json(response).get("errors").get(0).asText())
                    .contains("internal address")
                    .contains("upstream.hosts");
        }
    }

    @Test
    void anOriginCannotPointTheMirrorAtAnInternalHost() throws Exception {
        FakeOrigin.Release release = fixture.origin().publish("acme", "pointer", "1.0.0", "linux_amd64");
        fixture.origin()
                .pointArchiveAt(
                        release,
                        "linux_amd64",
                        java.net.URI.create("https://localhost:"
                                + fixture.origin().discoveryUrl().getPort() + release.archivePath("linux_amd64")));
        HttpResponse<byte[]> response = fixture.mirror()
                .get(fixture.mirror().providerPath("acme", "pointer")
                        + "terraform-provider-pointer_1.0.0_linux_amd64.zip");
        assertThat(response.statusCode()).isEqualTo(403);
        assertThat(json(response).get("errors").get(0).asText())
                .contains("localhost resolves to an internal address")
                .as("what internal names resolve to stays in the log")
                .doesNotContain("127.0.0.1");
        assertThat(fixture.origin().archiveDownloads(release, "linux_amd64")).isZero();
    }

    @Test
    void anOriginThatStallsMidTransferIsCutOffAndNothingIsCached() throws Exception {
        FakeOrigin.Release release =
                fixture.origin().publish("acme", "stall", "1.0.0", FakeOrigin.Tamper.NONE, 200_000, "linux_amd64");
        byte[] genuine = release.archives().get("linux_amd64");
        String path = fixture.mirror().providerPath("acme", "stall") + "terraform-provider-stall_1.0.0_linux_amd64.zip";
        try (io.providermirror.testkit.StallingServer stalling =
                io.providermirror.testkit.StallingServer.start(fixture.origin().certificates(), genuine, 50_000)) {
            fixture.origin().pointArchiveAt(release, "linux_amd64", stalling.url("/stall.zip"));
            // upstream.readTimeout is 2 s; the origin sends 50 kB and then nothing for 60 s.
            try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("stall-cache"), fixture.origin())
                    .set(
                            "upstream.hosts.example\\.test.downloadHosts",
                            List.of(stalling.url("/").getAuthority()))
                    .set("upstream.readTimeout", "2s")
                    .start()) {
                HttpResponse<java.io.InputStream> response = mirror.client.send(
                        HttpRequest.newBuilder(mirror.url(path)).build(), HttpResponse.BodyHandlers.ofInputStream());
                assertThat(response.statusCode()).isEqualTo(200);
                try (java.io.InputStream body = response.body()) {
                    assertThatThrownBy(body::readAllBytes).isInstanceOf(IOException.class);
                }
                try (var files = Files.walk(mirror.cacheDirectory.resolve("archives"))) {
                    assertThat(files.filter(
                                    p -> p.toString().contains("terraform-provider-stall") && Files.isRegularFile(p)))
                            .isEmpty();
                }
                stalling.heal();
                HttpResponse<byte[]> recovered = mirror.get(path);
                assertThat(recovered.statusCode())
                        .as("the mirror recovers once the origin does")
                        .isEqualTo(200);
                assertThat(recovered.body()).isEqualTo(genuine);
            }
        }
    }

    /** A mirror of the origin whose download host (another port of 127.0.0.1) is configured for it. */
    private static MirrorFixture withDownloadHost(String cache, java.net.URI downloadHost) {
        return MirrorFixture.builder(tmp.resolve(cache), fixture.origin())
                .set("upstream.hosts.example\\.test.downloadHosts", List.of(downloadHost.getAuthority()))
                .start();
    }

    @Test
    void aTruncatedArchiveIsNeverDeliveredNorCached() throws Exception {
        FakeOrigin.Release release =
                fixture.origin().publish("acme", "short", "1.0.0", FakeOrigin.Tamper.NONE, 200_000, "linux_amd64");
        String path = fixture.mirror().providerPath("acme", "short") + "terraform-provider-short_1.0.0_linux_amd64.zip";
        try (io.providermirror.testkit.StallingServer truncating = io.providermirror.testkit.StallingServer.truncating(
                fixture.origin().certificates(), release.archives().get("linux_amd64"), 120_000)) {
            fixture.origin().pointArchiveAt(release, "linux_amd64", truncating.url("/short.zip"));
            try (MirrorFixture mirror = withDownloadHost("short-cache", truncating.url("/"))) {
                try {
                    HttpResponse<byte[]> response = mirror.get(path);
                    assertThat(response.statusCode()).isEqualTo(502);
                } catch (IOException aborted) {
                    assertThat(aborted).isNotNull();
                }
            }
        }
        try (var files = Files.walk(tmp.resolve("short-cache").resolve("archives"))) {
            assertThat(files.filter(p -> p.toString().contains("terraform-provider-short") && Files.isRegularFile(p)))
                    .isEmpty();
        }
    }

    @Test
    void badInputGetsJsonErrors() throws Exception {
        List<String> paths = new ArrayList<>(List.of(
                "/providers/%2e%2e/%2e%2e/etc/index.json",
                "/providers/example.test/acme/x/..%2f..%2fetc%2fpasswd",
                "/providers/example.test/acme/x/v1.json",
                "/providers/EXAMPLE/acme/x/index.json"));
        for (String path : paths) {
            HttpResponse<byte[]> response = fixture.mirror().get(path);
            assertThat(response.statusCode()).as(path).isEqualTo(400);
            assertThat(json(response).get("errors").get(0).asText()).isNotBlank();
        }
        HttpResponse<byte[]> post = fixture.mirror()
                .send(HttpRequest.newBuilder(fixture.mirror().url("/providers/example.test/a/b/index.json"))
                        .POST(HttpRequest.BodyPublishers.ofString("x"))
                        .build());
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("allow")).contains("GET, HEAD");
        HttpResponse<byte[]> big = fixture.mirror()
                .send(HttpRequest.newBuilder(fixture.mirror().url("/providers/example.test/a/b/index.json"))
                        .header("X-Padding", "x".repeat(20_000))
                        .build());
        assertThat(big.statusCode()).isEqualTo(400);
        assertThat(json(big).get("errors").get(0).asText()).contains("too long");
        HttpResponse<byte[]> body = fixture.mirror()
                .send(HttpRequest.newBuilder(fixture.mirror().url("/providers/example.test/a/b/index.json"))
                        .method("GET", HttpRequest.BodyPublishers.ofByteArray(new byte[20_000]))
                        .build());
        assertThat(body.statusCode()).isEqualTo(413);
        assertThat(json(body).get("errors").get(0).asText()).contains("no body");
    }

    @Test
    void theHomePageShowsTheCliBlockForThisServer() throws Exception {
        HttpResponse<byte[]> home = fixture.mirror().get("/");
        assertThat(home.statusCode()).isEqualTo(200);
        assertThat(home.headers().firstValue("content-type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(new String(home.body(), java.nio.charset.StandardCharsets.UTF_8))
                .contains("network_mirror")
                .contains("url = &quot;https://localhost:"
                        + fixture.mirror().mirror.port() + "/providers/&quot;");
    }
}
