package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static io.providermirror.server.scenario.MirrorFixture.error;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.providermirror.testkit.ModuleArchives;
import io.providermirror.testkit.PrometheusScrape;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Module fetches under the bounds provider archives have: places per origin host and in all, the least transfer
 * rate, the archive's deadline, and one origin fetch per module version however many clients ask. The origin
 * trickles its archives on loopback; a second configured host ({@code slow.test}) shares its registry.
 */
final class ModuleFetchBoundsTest {

    private static final String SLOW_HOST = "slow.test";

    @TempDir
    Path tmp;

    @RegisterExtension
    final ModuleRegistryExtension modules = new ModuleRegistryExtension();

    private MirrorFixture mirror;

    /** A mirror whose {@code slow.test} host is the same origin as {@code example.test}. */
    private MirrorFixture.Builder builder() {
        return MirrorFixture.builder(tmp.resolve("cache"), modules.origin())
                .set(
                        "upstream.hosts." + SLOW_HOST.replace(".", "\\.") + ".discoveryUrl",
                        modules.origin().discoveryUrl().toString());
    }

    private static String path(String host, String module, String rest) {
        return "/registry/" + host + "/modules.v1/" + module + "/" + rest;
    }

    /** Ten bytes every 0.6 s: each read well within any readTimeout, the whole taking ten minutes. */
    private void trickle(String archivePath) {
        modules.origin()
                .wireMock()
                .stubFor(get(urlEqualTo(archivePath))
                        .willReturn(aResponse().withBody(new byte[10_000]).withChunkedDribbleDelay(1_000, 600_000)));
    }

    private CompletableFuture<HttpResponse<byte[]>> getAsync(String path) {
        return mirror.client.sendAsync(
                HttpRequest.newBuilder(mirror.url(path))
                        .timeout(Duration.ofMinutes(2))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void tricklingModuleArchivesFromOneHostCannotStopAModuleFromAnotherHostBeingServed() throws Exception {
        int slow = 4;
        for (int i = 0; i < slow; i++) {
            trickle("/archives/slow" + i + ".tar.gz");
            modules.registry().publish("corp", "slow" + i, "aws", "1.0.0", "/archives/slow" + i + ".tar.gz");
        }
        byte[] healthy = ModuleArchives.tarGz(Map.of("main.tf", "output \"v\" {\n  value = \"healthy\"\n}\n"));
        modules.registry().serveArchive("/archives/healthy.tar.gz", healthy);
        modules.registry().publish("corp", "healthy", "aws", "1.0.0", "/archives/healthy.tar.gz");
        mirror = modules.start(builder()
                .set("upstream.maxConcurrentFills", 4)
                .set("upstream.maxConcurrentFillsPerHost", 2)
                .set("upstream.readTimeout", "30s")
                .set("upstream.minTransferRate", "1")
                .set("upstream.archiveTimeout", "20s"));

        List<CompletableFuture<HttpResponse<byte[]>>> trickled = new ArrayList<>();
        for (int i = 0; i < slow; i++) {
            trickled.add(getAsync(path(SLOW_HOST, "corp/slow" + i + "/aws", "1.0.0/module.tar.gz")));
        }
        // Every slow request is either fetching from the origin now or was refused a place.
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            int fetching = modules.origin().requestsMatching("/archives/slow[0-9]+\\.tar\\.gz");
            long refused = trickled.stream()
                    .filter(f -> f.isDone() && f.join().statusCode() == 503)
                    .count();
            return fetching + refused == slow;
        });
        for (CompletableFuture<HttpResponse<byte[]>> response : trickled) {
            if (response.isDone()) {
                assertThat(response.join().statusCode()).isEqualTo(503);
                assertThat(error(response.join()))
                        .contains("upstream.maxConcurrentFillsPerHost")
                        .contains(SLOW_HOST);
            }
        }

        HttpResponse<byte[]> served = mirror.get(path(MirrorFixture.HOST, "corp/healthy/aws", "1.0.0/module.tar.gz"));

        assertThat(served.statusCode()).isEqualTo(200);
        assertThat(served.body()).isEqualTo(healthy);
    }

    @Test
    void aModuleArchiveTricklingBelowTheMinimumRateIsAbandonedWithAnErrorNamingTheModuleAndItsOrigin()
            throws Exception {
        trickle("/archives/slow.tar.gz");
        modules.registry().publish("corp", "slow", "aws", "1.0.0", "/archives/slow.tar.gz");
        mirror = modules.start(builder()
                .set("upstream.readTimeout", "1s")
                .set("upstream.minTransferRate", "1KiB")
                .set("upstream.archiveTimeout", "60s"));

        HttpResponse<byte[]> response = mirror.get(path(SLOW_HOST, "corp/slow/aws", "1.0.0/module.tar.gz"));

        assertThat(response.statusCode()).isEqualTo(504);
        assertThat(error(response))
                .contains(SLOW_HOST + "/corp/slow/aws 1.0.0")
                .contains(modules.origin().discoveryUrl().getAuthority())
                .contains("upstream.minTransferRate");
        assertAbandonedAndFetchedAgain("too_slow");
    }

    @Test
    void aModuleArchiveFetchLongerThanTheArchiveTimeoutIsAbandonedAndALaterRequestFetchesAgain() throws Exception {
        trickle("/archives/slow.tar.gz");
        modules.registry().publish("corp", "slow", "aws", "1.0.0", "/archives/slow.tar.gz");
        mirror = modules.start(builder()
                .set("upstream.readTimeout", "1s")
                .set("upstream.minTransferRate", "1")
                .set("upstream.archiveTimeout", "2s"));

        HttpResponse<byte[]> response = mirror.get(path(SLOW_HOST, "corp/slow/aws", "1.0.0/module.tar.gz"));

        assertThat(response.statusCode()).isEqualTo(504);
        assertThat(error(response)).contains(SLOW_HOST + "/corp/slow/aws");
        assertAbandonedAndFetchedAgain("deadline");
    }

    /** The trickling fetch was ended for {@code reason}, its temporary file removed, and its place given back. */
    private void assertAbandonedAndFetchedAgain(String reason) throws Exception {
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            String metrics = new String(mirror.get("/metrics").body(), StandardCharsets.UTF_8);
            assertThat(PrometheusScrape.parse(metrics)
                            .value("mirror_fills_abandoned_total", "host", "127.0.0.1", "reason", reason))
                    .isEqualTo(1);
        });
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            try (Stream<Path> leftovers = Files.list(mirror.cacheDirectory.resolve("tmp"))) {
                assertThat(leftovers).as("the temporary file is removed").isEmpty();
            }
        });
        byte[] archive = ModuleArchives.tarGz(Map.of("main.tf", "output \"v\" {\n  value = \"now\"\n}\n"));
        modules.registry().serveArchive("/archives/slow.tar.gz", archive);
        HttpResponse<byte[]> again = mirror.get(path(SLOW_HOST, "corp/slow/aws", "1.0.0/module.tar.gz"));
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.body()).isEqualTo(archive);
        assertThat(modules.registry().archiveDownloads("/archives/slow.tar.gz")).isEqualTo(2);
    }

    @Test
    void concurrentRequestsForOneModuleVersionCauseOneOriginFetch() throws Exception {
        byte[] archive = ModuleArchives.tarGz(Map.of("main.tf", "output \"v\" {\n  value = \"once\"\n}\n"));
        // Slow enough that the requests below arrive while it is fetched.
        modules.origin()
                .wireMock()
                .stubFor(get(urlEqualTo("/archives/once.tar.gz"))
                        .willReturn(aResponse().withBody(archive).withFixedDelay(1_500)));
        modules.registry().publish("corp", "once", "aws", "1.0.0", "/archives/once.tar.gz");
        mirror = modules.start(builder());

        List<CompletableFuture<HttpResponse<byte[]>>> downloads = new ArrayList<>();
        List<CompletableFuture<HttpResponse<byte[]>>> archives = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            downloads.add(getAsync(path(MirrorFixture.HOST, "corp/once/aws", "1.0.0/download")));
            archives.add(getAsync(path(MirrorFixture.HOST, "corp/once/aws", "1.0.0/module.tar.gz")));
        }

        CompletableFuture.allOf(downloads.toArray(CompletableFuture[]::new)).get();
        CompletableFuture.allOf(archives.toArray(CompletableFuture[]::new)).get();
        assertThat(modules.registry().archiveDownloads("/archives/once.tar.gz")).isEqualTo(1);
        for (CompletableFuture<HttpResponse<byte[]>> download : downloads) {
            assertThat(download.get().statusCode()).isEqualTo(204);
        }
        for (CompletableFuture<HttpResponse<byte[]>> response : archives) {
            assertThat(response.get().statusCode()).isEqualTo(200);
            assertThat(response.get().body()).isEqualTo(archive);
        }
    }
}
