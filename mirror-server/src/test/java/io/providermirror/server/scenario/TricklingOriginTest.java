package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static io.providermirror.server.scenario.MirrorFixture.error;
import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.RawHttpsServer;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Origins that answer at once and then send their documents a byte at a time, each byte well within
 * {@code upstream.readTimeout}: the request's deadline ({@code upstream.requestTimeout}) ends the read, so
 * they can hold neither the mirror's threads nor its archive download places.
 */
final class TricklingOriginTest {

    @TempDir
    static Path tmp;

    private static FakeOrigin origin;

    @BeforeAll
    static void start() {
        origin = FakeOrigin.start(tmp.resolve("origin"));
    }

    @AfterAll
    static void stop() {
        origin.close();
    }

    @Test
    void aRegistryTricklingItsDiscoveryDocumentGetsA504AndTheMirrorHangsUpOnItAtTheRequestDeadline() throws Exception {
        CountDownLatch hungUp = new CountDownLatch(1);
        try (RawHttpsServer trickler = RawHttpsServer.trickling(origin.certificates(), hungUp);
                MirrorFixture mirror = MirrorFixture.builder(
                                tmp.resolve("discovery-cache"), origin.caCertificate(), trickler.url("/"))
                        .set("server.metadataTimeout", "2s")
                        .set("upstream.requestTimeout", "3s")
                        .start()) {
            // The trickle would last more than a day: the client's bound only keeps a broken mirror from hanging.
            HttpResponse<byte[]> response =
                    mirror.send(HttpRequest.newBuilder(mirror.url(mirror.providerPath("acme", "slow") + "index.json"))
                            .timeout(Duration.ofSeconds(60))
                            .build());

            assertThat(response.statusCode()).isEqualTo(504);
            assertThat(error(response))
                    .contains("example.test/acme/slow")
                    .contains(trickler.url("/").getAuthority());
            // upstream.requestTimeout is 3 s: past it no mirror thread is left reading from the origin.
            assertThat(hungUp.await(60, TimeUnit.SECONDS))
                    .as("the origin saw the mirror hang up")
                    .isTrue();
        }
    }

    @Test
    void anExpiredDownloadUrlWhoseRenewedDocumentTricklesEndsTheFillAtTheRequestDeadlineAndFreesItsPlace()
            throws Exception {
        FakeOrigin.Release renewed = origin.publish("acme", "renewed", "1.0.0", "linux_amd64");
        FakeOrigin.Release other = origin.publish("acme", "other", "1.0.0", "linux_amd64");
        // The verified download URL has expired: it answers 404, so the fill asks for the download document again.
        origin.pointArchiveAt(renewed, "linux_amd64", origin.discoveryUrl().resolve("/expired/renewed.zip"));
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("refresh-cache"), origin)
                .set("upstream.requestTimeout", "3s")
                .set("upstream.maxConcurrentFills", 1)
                .set("upstream.maxConcurrentFillsPerHost", 1)
                .start()) {
            assertThat(mirror.get(mirror.providerPath("acme", "renewed") + "1.0.0.json")
                            .statusCode())
                    .isEqualTo(200);
            origin.wireMock()
                    .stubFor(get(urlEqualTo("/v1/providers/acme/renewed/1.0.0/download/linux/amd64"))
                            .willReturn(aResponse()
                                    .withHeader("Content-Type", "application/json")
                                    .withBody(" ".repeat(60_000))
                                    .withChunkedDribbleDelay(6_000, 600_000)));

            CompletableFuture<HttpResponse<byte[]>> stuck = mirror.client.sendAsync(
                    HttpRequest.newBuilder(mirror.url(
                                    mirror.providerPath("acme", "renewed") + renewed.fileName("linux_amd64")))
                            .timeout(Duration.ofSeconds(60))
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());

            // upstream.requestTimeout is 3 s for the archive's URL, and as much for the renewed document.
            // Generous: the dribble lasts 6 s per request, so a 504 naming upstream.requestTimeout is the deadline.
            assertThat(stuck).succeedsWithin(Duration.ofSeconds(60)).satisfies(response -> {
                assertThat(response.statusCode()).isEqualTo(504);
                assertThat(error(response))
                        .contains("example.test/acme/renewed")
                        .contains("upstream.requestTimeout");
            });
            assertThat(origin.requestsMatching("/expired/renewed.zip")).isEqualTo(1);
            // The fill's place is free again: the next cold archive from the host is fetched, not refused with 503.
            HttpResponse<byte[]> next =
                    mirror.get(mirror.providerPath("acme", "other") + other.fileName("linux_amd64"));
            assertThat(next.statusCode()).isEqualTo(200);
            assertThat(next.body()).isEqualTo(other.archives().get("linux_amd64"));
        }
    }

    @Test
    void renewingAnExpiredDownloadUrlCountsTowardsTheArchiveTimeout() throws Exception {
        FakeOrigin.Release late = origin.publish("acme", "late", "1.0.0", "linux_amd64");
        origin.pointArchiveAt(late, "linux_amd64", origin.discoveryUrl().resolve("/expired/late.zip"));
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("late-cache"), origin)
                .set("upstream.archiveTimeout", "1s")
                .start()) {
            assertThat(mirror.get(mirror.providerPath("acme", "late") + "1.0.0.json")
                            .statusCode())
                    .isEqualTo(200);
            // The renewed document names the working URL, but every answer now takes 1.5 s: well within
            // upstream.requestTimeout (the fixture's 60 s), and past the archive's 1 s once the expired URL and the
            // renewal are asked.
            origin.pointArchiveAt(late, "linux_amd64", origin.discoveryUrl().resolve(late.archivePath("linux_amd64")));
            origin.wireMock().setGlobalFixedDelay(1_500);
            try {
                HttpResponse<byte[]> response =
                        mirror.get(mirror.providerPath("acme", "late") + late.fileName("linux_amd64"));

                assertThat(response.statusCode()).isEqualTo(504);
                assertThat(error(response)).contains("example.test/acme/late").contains("upstream.archiveTimeout");
                assertThat(origin.archiveDownloads(late, "linux_amd64"))
                        .as("the renewed URL is not opened")
                        .isZero();
            } finally {
                origin.wireMock().setGlobalFixedDelay(0);
            }
        }
    }
}
