package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.FakeOrigin;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Many clients at once: one origin request for each thing, whatever the crowd. */
final class ManyClientsTest {

    @RegisterExtension
    static final MirrorExtension fixture = MirrorExtension.withDefaults();

    private static ExecutorService clients;

    @BeforeAll
    static void start() {
        clients = Executors.newFixedThreadPool(32);
    }

    @AfterAll
    static void stop() {
        clients.shutdownNow();
    }

    /** Runs {@code count} copies of {@code call} released together, and returns their results. */
    private static <T> List<T> together(int count, Callable<T> call) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<T>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            futures.add(clients.submit(() -> {
                go.await();
                return call.call();
            }));
        }
        go.countDown();
        List<T> results = new ArrayList<>();
        for (Future<T> future : futures) {
            results.add(future.get(120, TimeUnit.SECONDS));
        }
        return results;
    }

    @Test
    void thirtyTwoClientsOfOneCold50MbArchiveCauseOneOriginDownloadAndGetIdenticalBytes() throws Exception {
        FakeOrigin.Release release =
                fixture.origin().publish("acme", "big", "1.0.0", FakeOrigin.Tamper.NONE, 50_000_000, "linux_amd64");
        fixture.origin().serveSlowly(release, "linux_amd64", 25, 2_500);
        String path = fixture.mirror().providerPath("acme", "big") + "terraform-provider-big_1.0.0_linux_amd64.zip";
        assertThat(fixture.mirror()
                        .get(fixture.mirror().providerPath("acme", "big") + "1.0.0.json")
                        .statusCode())
                .isEqualTo(200);

        List<String> digests = together(32, () -> {
            HttpResponse<InputStream> response = fixture.mirror()
                    .client
                    .send(
                            HttpRequest.newBuilder(fixture.mirror().url(path)).build(),
                            HttpResponse.BodyHandlers.ofInputStream());
            assertThat(response.statusCode()).isEqualTo(200);
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[64 * 1024];
            try (InputStream body = response.body()) {
                int n;
                while ((n = body.read(buffer)) >= 0) {
                    digest.update(buffer, 0, n);
                }
            }
            return HexFormat.of().formatHex(digest.digest());
        });

        assertThat(digests).hasSize(32).containsOnly(release.sha256("linux_amd64"));
        assertThat(fixture.origin().archiveDownloads(release, "linux_amd64")).isEqualTo(1);
    }

    @Test
    void concurrentMissesOfOneVersionListOrVersionDocumentCauseOneUpstreamCall() throws Exception {
        fixture.origin().publish("acme", "popular", "1.0.0", "linux_amd64", "darwin_arm64");
        fixture.origin()
                .wireMock()
                .stubFor(get(urlEqualTo("/v1/providers/acme/popular/versions"))
                        .willReturn(aResponse()
                                .withFixedDelay(500)
                                .withHeader("Content-Type", "application/json")
                                .withBody(
                                        "{\"versions\":[{\"version\":\"1.0.0\",\"platforms\":[{\"os\":\"linux\",\"arch\":\"amd64\"},"
                                                + "{\"os\":\"darwin\",\"arch\":\"arm64\"}]}]}")));
        List<Integer> index = together(
                24,
                () -> fixture.mirror()
                        .get(fixture.mirror().providerPath("acme", "popular") + "index.json")
                        .statusCode());
        assertThat(index).containsOnly(200);
        assertThat(fixture.origin().requestsMatching("/v1/providers/acme/popular/versions"))
                .isEqualTo(1);

        List<Integer> documents = together(
                24,
                () -> fixture.mirror()
                        .get(fixture.mirror().providerPath("acme", "popular") + "1.0.0.json")
                        .statusCode());
        assertThat(documents).containsOnly(200);
        assertThat(fixture.origin().requestsMatching("/v1/providers/acme/popular/1.0.0/download/linux/amd64"))
                .isEqualTo(1);
        assertThat(fixture.origin().requestsMatching("/v1/providers/acme/popular/1.0.0/download/darwin/arm64"))
                .isEqualTo(1);
        assertThat(fixture.origin().requestsMatching("/files/acme/popular/1.0.0/.*SHA256SUMS"))
                .isEqualTo(1);
    }

    @Test
    void aFillThatFailsVerificationAbortsEveryClient() throws Exception {
        FakeOrigin.Release release = fixture.origin()
                .publish("acme", "badcrowd", "1.0.0", FakeOrigin.Tamper.ARCHIVE_BYTES, 2_000_000, "linux_amd64");
        byte[] tampered = fixture.origin().serveTamperedSlowly(release, "linux_amd64", 10, 1_000);
        String path =
                fixture.mirror().providerPath("acme", "badcrowd") + "terraform-provider-badcrowd_1.0.0_linux_amd64.zip";
        assertThat(fixture.mirror()
                        .get(fixture.mirror().providerPath("acme", "badcrowd") + "1.0.0.json")
                        .statusCode())
                .isEqualTo(200);
        List<Boolean> completed = together(8, () -> {
            try {
                HttpResponse<byte[]> response = fixture.mirror().get(path);
                return response.statusCode() == 200 && response.body().length == tampered.length;
            } catch (java.io.IOException aborted) {
                return false;
            }
        });
        assertThat(completed).containsOnly(false);
    }
}
