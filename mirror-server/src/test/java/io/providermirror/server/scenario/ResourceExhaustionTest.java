package io.providermirror.server.scenario;

import static io.providermirror.server.scenario.MirrorFixture.error;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.github.tomakehurst.wiremock.client.WireMock;
import io.providermirror.testkit.ControlledArchiveServer;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.HangingRegistry;
import io.providermirror.testkit.PrometheusScrape;
import io.providermirror.testkit.SettableClock;
import io.providermirror.upstream.TrustedCertificates;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Floods and slow origins, as an attacker would use them to exhaust the mirror: cold misses beyond the fill
 * limits, an origin that trickles bytes, made-up provider names, a disk without room, and more connections
 * than the listener takes. The origins are on loopback, inside the test.
 */
final class ResourceExhaustionTest {

    @TempDir
    Path tmp;

    private static String archivePath(MirrorFixture mirror, FakeOrigin.Release release, String platform) {
        return mirror.providerPath(release.namespace(), release.type()) + release.fileName(platform);
    }

    private static CompletableFuture<HttpResponse<byte[]>> getAsync(MirrorFixture mirror, String path) {
        return mirror.client.sendAsync(
                HttpRequest.newBuilder(mirror.url(path))
                        .timeout(Duration.ofSeconds(60))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    private static long mirrorWorkerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("mirror-io")
                        || t.getName().startsWith("mirror-fill")
                        || t.getName().startsWith("mirror-origin"))
                .count();
    }

    @Test
    void coldMissesBeyondTheFillLimitsGet503WithRetryAfterWhileThreadsStayBoundedAndAllCompleteLater()
            throws Exception {
        int excess = 40;
        String[] platforms =
                IntStream.range(0, 2 + excess).mapToObj(i -> "linux_p" + i).toArray(String[]::new);
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                ControlledArchiveServer files = ControlledArchiveServer.start(origin.certificates());
                MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                        .set("upstream.maxConcurrentFills", 3)
                        .set("upstream.maxConcurrentFillsPerHost", 2)
                        .set("upstream.readTimeout", "30s")
                        .set("upstream.minTransferRate", "1")
                        // The archives live on a second loopback port: the origin's download host.
                        .set("upstream.hosts.example\\.test.downloadHosts", List.of("127.0.0.1:" + files.port()))
                        .start()) {
            FakeOrigin.Release release =
                    origin.publish("acme", "many", "1.0.0", FakeOrigin.Tamper.NONE, 20_000, platforms);
            for (String platform : platforms) {
                origin.pointArchiveAt(
                        release,
                        platform,
                        files.serve(
                                "/" + release.fileName(platform),
                                release.archives().get(platform)));
            }
            assertThat(mirror.get(mirror.providerPath("acme", "many") + "1.0.0.json")
                            .statusCode())
                    .isEqualTo(200);

            List<CompletableFuture<HttpResponse<byte[]>>> held = List.of(
                    getAsync(mirror, archivePath(mirror, release, "linux_p0")),
                    getAsync(mirror, archivePath(mirror, release, "linux_p1")));
            await().atMost(Duration.ofSeconds(20)).until(() -> files.requests() == 2);

            // Following a download in progress takes no place: this client is answered at once, and waits for bytes.
            CompletableFuture<Integer> joinerStatus = new CompletableFuture<>();
            CompletableFuture<HttpResponse<byte[]>> joiner = mirror.client.sendAsync(
                    HttpRequest.newBuilder(mirror.url(archivePath(mirror, release, "linux_p0")))
                            .timeout(Duration.ofSeconds(60))
                            .GET()
                            .build(),
                    info -> {
                        joinerStatus.complete(info.statusCode());
                        return HttpResponse.BodySubscribers.ofByteArray();
                    });
            assertThat(joinerStatus.get(20, TimeUnit.SECONDS)).isEqualTo(200);

            List<CompletableFuture<HttpResponse<byte[]>>> refused = new ArrayList<>();
            for (int i = 2; i < platforms.length; i++) {
                refused.add(getAsync(mirror, archivePath(mirror, release, platforms[i])));
            }
            for (int i = 0; i < refused.size(); i++) {
                HttpResponse<byte[]> response = refused.get(i).get();
                assertThat(response.statusCode()).isEqualTo(503);
                assertThat(response.headers().firstValue("retry-after")).contains("5");
                assertThat(error(response))
                        .contains("upstream.maxConcurrentFillsPerHost")
                        .contains("example.test/acme/many 1.0.0 " + platforms[i + 2])
                        .contains("example.test");
            }
            assertThat(files.requests())
                    .as("no download was started beyond the limit")
                    .isEqualTo(2);
            // io and origin pools: max(16, maxConcurrentFills) + maxConcurrentFillsPerHost each; fills:
            // maxConcurrentFills. Unbounded, the 42 held downloads alone would take 42.
            assertThat(mirrorWorkerThreads()).isLessThanOrEqualTo(18 + 18 + 3);

            files.release();
            for (int i = 0; i < held.size(); i++) {
                HttpResponse<byte[]> response = held.get(i).get();
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.body()).isEqualTo(release.archives().get(platforms[i]));
            }
            assertThat(joiner.get().body()).isEqualTo(release.archives().get("linux_p0"));
            assertThat(files.requests()).as("the joiner started no download").isEqualTo(2);
            HttpResponse<byte[]> retried = mirror.get(archivePath(mirror, release, "linux_p2"));
            assertThat(retried.statusCode())
                    .as("a refused request succeeds when tried again")
                    .isEqualTo(200);
            assertThat(retried.body()).isEqualTo(release.archives().get("linux_p2"));
        }
    }

    /** Where the hanging origin hangs, and what its clients ask for. */
    enum Hang {
        /** On providers' version lists: index.json's pulls, on the blocking pool. */
        VERSION_LISTS("index.json"),
        /** On the download documents a release fans out to, on the origin pool. */
        DOWNLOAD_DOCUMENTS("1.0.0.json"),
        /** On modules' version lists, on the blocking pool. */
        MODULE_VERSIONS("versions");

        final String asked;

        Hang(String asked) {
            this.asked = asked;
        }

        /** The path of the {@code i}th request for the hanging origin. */
        String stuckPath(int i) {
            return this == MODULE_VERSIONS
                    ? "/registry/stuck.test/modules.v1/corp/m" + i + "/aws/versions"
                    : "/providers/stuck.test/acme/p" + i + "/" + asked;
        }

        /** What the healthy origin is asked for meanwhile. */
        String healthyPath(MirrorFixture mirror) {
            return mirror.providerPath("acme", "healthy") + (this == MODULE_VERSIONS ? "index.json" : asked);
        }
    }

    @ParameterizedTest
    @EnumSource(Hang.class)
    void anOriginThatHangsHoldsOnlyItsShareOfThePoolsAndAnotherOriginsColdProviderIsServedMeanwhile(Hang hang)
            throws Exception {
        int stuckProviders = 24;
        String[] platforms = IntStream.range(0, 14).mapToObj(i -> "linux_p" + i).toArray(String[]::new);
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                HangingRegistry stuck = hang == Hang.DOWNLOAD_DOCUMENTS
                        ? HangingRegistry.listing(origin.certificates(), platforms)
                        : HangingRegistry.start(origin.certificates());
                MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                        // Pools of 16 + 4 threads; one origin host's requests take 16 of them at most.
                        .set("upstream.maxConcurrentFills", 16)
                        .set("upstream.maxConcurrentFillsPerHost", 4)
                        .set(
                                "upstream.hosts.stuck\\.test.discoveryUrl",
                                stuck.discoveryUrl().toString())
                        .start()) {
            origin.publish("acme", "healthy", "1.0.0", platforms);
            List<CompletableFuture<HttpResponse<byte[]>>> hanging = new ArrayList<>();
            for (int i = 0; i < stuckProviders; i++) {
                hanging.add(getAsync(mirror, hang.stuckPath(i)));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> stuck.held() >= 16);
            // Every request for it beyond its share waits on its lane, counted for the operator's alert.
            await().atMost(Duration.ofSeconds(30)).until(() -> waitingOnLanes(mirror, "io") == stuckProviders - 16);

            // More requests for the hanging origin than the pools have threads wait for it; this one does not.
            HttpResponse<byte[]> served = mirror.get(hang.healthyPath(mirror));

            assertThat(served.statusCode())
                    .as("the healthy origin's answer: %s", new String(served.body(), StandardCharsets.UTF_8))
                    .isEqualTo(200);
            assertThat(hanging)
                    .as("the hanging origin has answered nothing yet")
                    .noneMatch(CompletableFuture::isDone);
            assertThat(stuck.mostHeld())
                    .as("requests the hanging origin held at once")
                    .isEqualTo(16);

            stuck.recover();
            for (CompletableFuture<HttpResponse<byte[]>> response : hanging) {
                assertThat(response.get(60, TimeUnit.SECONDS).statusCode())
                        .as("each waiting request has its turn once the origin recovers")
                        .isEqualTo(404);
            }
            assertThat(stuck.mostHeld()).isEqualTo(16);
            assertThat(waitingOnLanes(mirror, "io")).isZero();
            assertThat(waitingOnLanes(mirror, "origin")).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = Hang.class,
            names = {"VERSION_LISTS", "MODULE_VERSIONS"})
    void anOriginThatHangsGetsAtMostItsQueueOfWaitingRequestsAndTheNextIsToldToTryAgainNamingIt(Hang hang)
            throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                HangingRegistry stuck = HangingRegistry.start(origin.certificates());
                MirrorFixture mirror = queueingTwo(origin, stuck)) {
            List<CompletableFuture<HttpResponse<byte[]>>> hanging = new ArrayList<>();
            for (int i = 0; i < 18; i++) {
                hanging.add(getAsync(mirror, hang.stuckPath(i)));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> stuck.held() >= 16);
            await().atMost(Duration.ofSeconds(30)).until(() -> waitingOnLanes(mirror, "io") == 2);

            // A lane's width running and its queue full: the next distinct request is refused at once.
            HttpResponse<byte[]> refused = mirror.get(hang.stuckPath(18));

            String body = new String(refused.body(), StandardCharsets.UTF_8);
            assertThat(refused.statusCode()).as("the refusal: %s", body).isEqualTo(503);
            assertThat(refused.headers().firstValue("retry-after")).contains("5");
            assertThat(body)
                    .startsWith("{\"errors\":[")
                    .contains("2 requests to stuck.test wait already")
                    .contains("upstream.maxWaitingPerHost");
            String metrics = new String(mirror.get("/metrics").body(), StandardCharsets.UTF_8);
            assertThat(PrometheusScrape.parse(metrics)
                            .value("mirror_refusals_total", "reason", "origin_queue", "host", "stuck.test"))
                    .as("the refusal counted by host")
                    .isEqualTo(1.0);
            assertThat(hanging).noneMatch(CompletableFuture::isDone);

            stuck.recover();
            for (CompletableFuture<HttpResponse<byte[]>> response : hanging) {
                assertThat(response.get(60, TimeUnit.SECONDS).statusCode())
                        .as("each waiting request has its turn once the origin recovers")
                        .isEqualTo(404);
            }
            // Tried again (a request's task leaves its lane a moment after its answer): the refusal is not remembered.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> answersNotFound(mirror, hang.stuckPath(18)));
        }
    }

    @Test
    void aReleaseWhoseDownloadDocumentsFindTheirOriginsLaneFullIsToldToTryAgainNamingTheOrigin() throws Exception {
        String[] platforms = IntStream.range(0, 14).mapToObj(i -> "linux_p" + i).toArray(String[]::new);
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                HangingRegistry stuck = HangingRegistry.listing(origin.certificates(), platforms);
                MirrorFixture mirror = queueingTwo(origin, stuck)) {
            // Two releases of 14 platforms: 28 download documents for a lane of 16 running and 2 waiting.
            List<CompletableFuture<HttpResponse<byte[]>>> releases = List.of(
                    getAsync(mirror, Hang.DOWNLOAD_DOCUMENTS.stuckPath(0)),
                    getAsync(mirror, Hang.DOWNLOAD_DOCUMENTS.stuckPath(1)));

            await().atMost(Duration.ofSeconds(30)).until(() -> releases.stream().anyMatch(CompletableFuture::isDone));
            for (CompletableFuture<HttpResponse<byte[]>> release : releases) {
                if (release.isDone()) {
                    HttpResponse<byte[]> refused = release.get();
                    String body = new String(refused.body(), StandardCharsets.UTF_8);
                    assertThat(refused.statusCode()).as("the refusal: %s", body).isEqualTo(503);
                    assertThat(refused.headers().firstValue("retry-after")).contains("5");
                    assertThat(body).contains("requests to stuck.test wait already");
                }
            }

            stuck.recover();
            for (int i = 0; i < releases.size(); i++) {
                releases.get(i).get(60, TimeUnit.SECONDS);
                // Asked again once the refused release's requests that were running have left the lane.
                String path = Hang.DOWNLOAD_DOCUMENTS.stuckPath(i);
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> answersNotFound(mirror, path));
            }
        }
    }

    private static void answersNotFound(MirrorFixture mirror, String path) throws Exception {
        HttpResponse<byte[]> response = mirror.get(path);
        assertThat(response.statusCode())
                .as("%s: %s", path, new String(response.body(), StandardCharsets.UTF_8))
                .isEqualTo(404);
    }

    /** A mirror whose lanes run 16 requests to {@code stuck}'s origin and queue 2 more. */
    private MirrorFixture queueingTwo(FakeOrigin origin, HangingRegistry stuck) {
        return MirrorFixture.builder(tmp.resolve("cache"), origin)
                .set("upstream.maxConcurrentFills", 16)
                .set("upstream.maxConcurrentFillsPerHost", 4)
                .set("upstream.maxWaitingPerHost", 2)
                .set(
                        "upstream.hosts.stuck\\.test.discoveryUrl",
                        stuck.discoveryUrl().toString())
                .start();
    }

    private static double waitingOnLanes(MirrorFixture mirror, String pool) throws Exception {
        String metrics = new String(mirror.get("/metrics").body(), StandardCharsets.UTF_8);
        return PrometheusScrape.parse(metrics).value("mirror_origin_requests_waiting", "pool", pool);
    }

    @Test
    void anOriginTricklingBytesBelowTheMinimumRateIsAbandonedCleanlyAndALaterRequestTriesAgain() throws Exception {
        abandonsTheTrickle("upstream.minTransferRate", "1KiB", "1", "too_slow");
    }

    @Test
    void anArchiveDownloadLongerThanArchiveTimeoutIsAbandonedCleanlyAndALaterRequestTriesAgain() throws Exception {
        abandonsTheTrickle("upstream.archiveTimeout", "1s", "1", "deadline");
    }

    private void abandonsTheTrickle(String key, String value, String minRate, String reason) throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                        .set("upstream.readTimeout", "1s")
                        .set("upstream.minTransferRate", minRate)
                        .set(key, value)
                        .start()) {
            FakeOrigin.Release release =
                    origin.publish("acme", "slow", "1.0.0", FakeOrigin.Tamper.NONE, 20_000, "linux_amd64");
            // Two bytes every 100 ms: each read returns well within readTimeout, and the whole takes 17 minutes.
            origin.serveSlowly(release, "linux_amd64", 10_000, 1_000_000);
            String path = archivePath(mirror, release, "linux_amd64");

            CompletableFuture<HttpResponse<byte[]>> trickled = getAsync(mirror, path);
            await().atMost(Duration.ofSeconds(60)).until(trickled::isDone);
            assertThat(trickled.handle((response, failure) -> failure != null || response.statusCode() != 200)
                            .get())
                    .as("the client gets an error or a cut connection, never a complete archive")
                    .isTrue();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                try (Stream<Path> leftovers = Files.list(mirror.cacheDirectory.resolve("tmp"))) {
                    assertThat(leftovers).as("the temporary file is removed").isEmpty();
                }
            });
            String metrics = new String(mirror.get("/metrics").body(), StandardCharsets.UTF_8);
            assertThat(PrometheusScrape.parse(metrics)
                            .value("mirror_fills_abandoned_total", "host", "127.0.0.1", "reason", reason))
                    .isEqualTo(1);

            origin.wireMock()
                    .stubFor(WireMock.get(WireMock.urlEqualTo(release.archivePath("linux_amd64")))
                            .willReturn(WireMock.aResponse()
                                    .withBody(release.archives().get("linux_amd64"))));
            HttpResponse<byte[]> again = mirror.get(path);
            assertThat(again.statusCode()).isEqualTo(200);
            assertThat(again.body()).isEqualTo(release.archives().get("linux_amd64"));
            assertThat(origin.archiveDownloads(release, "linux_amd64"))
                    .as("the later request went to the origin again")
                    .isEqualTo(2);
        }
    }

    @Test
    void requestsForAProviderTheOriginDoesNotHaveReachTheOriginOncePerNotFoundTtl() throws Exception {
        SettableClock clock = new SettableClock();
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                        .set("cache.notFoundTtl", "1m")
                        .clock(clock)
                        .start()) {
            String index = mirror.providerPath("acme", "made-up") + "index.json";
            for (int i = 0; i < 10; i++) {
                HttpResponse<byte[]> response = mirror.get(index);
                assertThat(response.statusCode()).isEqualTo(404);
                assertThat(error(response)).contains("example.test/acme/made-up");
            }
            List<CompletableFuture<HttpResponse<byte[]>>> flood = IntStream.range(0, 20)
                    .mapToObj(i -> getAsync(mirror, index))
                    .toList();
            for (CompletableFuture<HttpResponse<byte[]>> response : flood) {
                assertThat(response.get().statusCode()).isEqualTo(404);
            }
            assertThat(origin.requestsMatching("/v1/providers/acme/made-up/versions"))
                    .isEqualTo(1);

            clock.advance(Duration.ofSeconds(61));
            assertThat(mirror.get(index).statusCode()).isEqualTo(404);
            assertThat(origin.requestsMatching("/v1/providers/acme/made-up/versions"))
                    .as("after notFoundTtl the origin is asked again")
                    .isEqualTo(2);

            origin.publish("acme", "made-up", "1.0.0", "linux_amd64");
            clock.advance(Duration.ofSeconds(61));
            assertThat(mirror.get(index).statusCode())
                    .as("a provider published since is found")
                    .isEqualTo(200);
        }
    }

    @Test
    void withoutRoomForTheFreeSpaceWatermarkNewArchivesGet507AndCachedOnesAreStillServed() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"))) {
            FakeOrigin.Release kept = origin.publish("acme", "kept", "1.0.0", "linux_amd64");
            FakeOrigin.Release later = origin.publish("acme", "later", "1.0.0", "linux_amd64");
            try (MirrorFixture mirror =
                    MirrorFixture.builder(tmp.resolve("cache"), origin).start()) {
                assertThat(mirror.get(archivePath(mirror, kept, "linux_amd64")).statusCode())
                        .isEqualTo(200);
            }
            // No test machine has a pebibyte free: the watermark cannot be met, whatever is evicted.
            try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                    .set("cache.minFreeSpace", "1024TiB")
                    .start()) {
                HttpResponse<byte[]> refused = mirror.get(archivePath(mirror, later, "linux_amd64"));
                assertThat(refused.statusCode()).isEqualTo(507);
                assertThat(refused.headers().firstValue("content-type")).contains("application/json");
                assertThat(error(refused))
                        .contains("example.test/acme/later 1.0.0 linux_amd64")
                        .contains("cache.minFreeSpace");
                assertThat(origin.archiveDownloads(later, "linux_amd64")).isZero();

                HttpResponse<byte[]> cached = mirror.get(archivePath(mirror, kept, "linux_amd64"));
                assertThat(cached.statusCode())
                        .as("what is cached is not evicted in vain")
                        .isEqualTo(200);
                assertThat(cached.body()).isEqualTo(kept.archives().get("linux_amd64"));
            }
        }
    }

    @Test
    void connectionsBeyondMaxConnectionsAreClosedAtAcceptUntilOneCloses() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                        .set("server.maxConnections", 2)
                        .start()) {
            SSLContext tls = TrustedCertificates.sslContext(
                    mirror.mirror.generatedCaFile().orElseThrow());
            int port = mirror.mirror.port();
            SSLSocket first = handshake(tls, port);
            try (SSLSocket second = handshake(tls, port)) {
                assertThatThrownBy(() -> handshake(tls, port).close()).isInstanceOf(IOException.class);
                first.close();
                await().atMost(Duration.ofSeconds(10))
                        .ignoreExceptions()
                        .untilAsserted(() -> handshake(tls, port).close());
                assertThat(second.isClosed()).isFalse();
            }
        }
    }

    private static SSLSocket handshake(SSLContext tls, int port) throws IOException {
        SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", port);
        try {
            socket.setSoTimeout(5000);
            socket.startHandshake();
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }
}
