package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static io.providermirror.server.scenario.MirrorFixture.error;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.RawHttpsServer;
import io.providermirror.testkit.TestCertificates;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Origins that are slow, lie about sizes, send garbage, loop or fail TLS: each gives the client a clear error
 * in time, and the mirror caches nothing bad and recovers when the origin does.
 */
final class OriginTroubleTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;

    @RegisterExtension
    static final MirrorExtension fixture =
            MirrorExtension.with((builder, directory) -> builder.set("upstream.maxArchiveBytes", 150_000));

    private static String archivePath(String type) {
        return fixture.mirror().providerPath("acme", type) + "terraform-provider-" + type + "_1.0.0_linux_amd64.zip";
    }

    private static Stream<Path> cachedFilesOf(String type) throws IOException {
        return cachedFilesOf(fixture.mirror(), type);
    }

    private static Stream<Path> cachedFilesOf(MirrorFixture mirror, String type) throws IOException {
        try (Stream<Path> walk = Files.walk(mirror.cacheDirectory.resolve("archives"))) {
            return walk
                    .filter(p -> p.toString().contains("terraform-provider-" + type + "_") && Files.isRegularFile(p))
                    .toList()
                    .stream();
        }
    }

    @Test
    void aColdVersionDocumentNeedingManySlowOriginCallsGetsA504InTimeAndTheRetryFindsItDone() throws Exception {
        FakeOrigin.Release release = fixture.origin().publish("acme", "chain", "1.0.0", "linux_amd64");
        // Each origin call is well within upstream.requestTimeout (the fixture's 60 s); together they exceed
        // server.metadataTimeout (2 s, only for this mirror: a busy machine could exceed it for any cold answer).
        fixture.origin()
                .wireMock()
                .stubFor(
                        get(urlEqualTo("/v1/providers/acme/chain/versions"))
                                .willReturn(
                                        aResponse()
                                                .withFixedDelay(1_500)
                                                .withHeader("Content-Type", "application/json")
                                                .withBody(
                                                        "{\"versions\":[{\"version\":\"1.0.0\",\"platforms\":[{\"os\":\"linux\",\"arch\":\"amd64\"}]}]}")));
        fixture.origin()
                .wireMock()
                .stubFor(get(urlEqualTo(release.archivePath("linux_amd64")
                                .replace(release.fileName("linux_amd64"), "terraform-provider-chain_1.0.0_SHA256SUMS")))
                        .willReturn(aResponse().withFixedDelay(1_500).withBody(release.sha256Sums())));

        try (MirrorFixture impatient = MirrorFixture.builder(tmp.resolve("impatient-cache"), fixture.origin())
                .set("server.metadataTimeout", "2s")
                .start()) {
            String document = impatient.providerPath("acme", "chain") + "1.0.0.json";
            HttpResponse<byte[]> first = impatient.get(document);

            assertThat(first.statusCode()).isEqualTo(504);
            assertThat(error(first))
                    .contains("version 1.0.0 of example.test/acme/chain")
                    .contains("127.0.0.1:" + fixture.origin().discoveryUrl().getPort())
                    .contains("did not answer within 2000 ms");
            // The work went on in the background: the CLI's retry gets the answer without asking the origin again.
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> impatient.get(document).statusCode() == 200);
        }
        assertThat(fixture.origin().requestsMatching("/v1/providers/acme/chain/versions"))
                .isEqualTo(1);
        assertThat(fixture.origin().requestsMatching("/v1/providers/acme/chain/1.0.0/download/linux/amd64"))
                .isEqualTo(1);
    }

    @Test
    void aSlowOriginDoesNotDelayAStaleVersionList() throws Exception {
        try (MirrorFixture stale = MirrorFixture.builder(tmp.resolve("stale-cache"), fixture.origin())
                .set("cache.indexTtl", "0s")
                .start()) {
            fixture.origin().publish("acme", "stale", "1.0.0", "linux_amd64");
            String index = stale.providerPath("acme", "stale") + "index.json";
            assertThat(stale.get(index).statusCode()).isEqualTo(200);
            fixture.origin()
                    .wireMock()
                    .stubFor(get(urlEqualTo("/v1/providers/acme/stale/versions"))
                            .willReturn(aResponse()
                                    .withFixedDelay(10_000)
                                    .withHeader("Content-Type", "application/json")
                                    .withBody("{\"versions\":[]}")));

            // The list is stale (TTL 0), the origin takes 10 s and then lists no version: the cached list (with
            // 1.0.0) is the answer, before the CLI's ~10 s timeout (this client allows 9 s, below the origin's 10 s;
            // the content, not the time, tells which answer came).
            HttpResponse<byte[]> response = stale.send(HttpRequest.newBuilder(stale.url(index))
                    .timeout(Duration.ofSeconds(9))
                    .build());

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(response.body()).get("versions").has("1.0.0"))
                    .isTrue();
        }
    }

    @Test
    void anArchiveAnnouncedLargerThanTheLimitIsRefusedBeforeAnyByteIsStored() throws Exception {
        fixture.origin().publish("acme", "toolarge", "1.0.0", FakeOrigin.Tamper.NONE, 300_000, "linux_amd64");

        HttpResponse<byte[]> response = fixture.mirror().get(archivePath("toolarge"));

        assertThat(response.statusCode()).isEqualTo(502);
        assertThat(error(response))
                .contains("example.test/acme/toolarge 1.0.0 linux_amd64")
                .contains("more than upstream.maxArchiveBytes (150000)");
        try (Stream<Path> files = cachedFilesOf("toolarge")) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void anArchiveStreamedWithoutALengthIsCutOffAtTheLimit() throws Exception {
        FakeOrigin.Release release =
                fixture.origin().publish("acme", "sneaky", "1.0.0", FakeOrigin.Tamper.NONE, 300_000, "linux_amd64");
        fixture.origin().serveSlowly(release, "linux_amd64", 20, 200);

        assertThat(fetchCompletes(archivePath("sneaky"), release.archives().get("linux_amd64").length))
                .as("the client never gets it whole")
                .isFalse();
        try (Stream<Path> files = cachedFilesOf("sneaky")) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void anOriginSendingMoreThanItAnnouncedIsNeverCachedAndTheMirrorRecovers() throws Exception {
        FakeOrigin.Release release =
                fixture.origin().publish("acme", "overlong", "1.0.0", FakeOrigin.Tamper.NONE, 20_000, "linux_amd64");
        byte[] genuine = release.archives().get("linux_amd64");
        int announced = genuine.length - 5_000;
        java.util.concurrent.atomic.AtomicBoolean honest = new java.util.concurrent.atomic.AtomicBoolean();
        try (RawHttpsServer liar = RawHttpsServer.start(fixture.origin().certificates(), out -> {
            int length = honest.get() ? genuine.length : announced;
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/zip\r\nContent-Length: " + length
                            + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(genuine);
        })) {
            fixture.origin().pointArchiveAt(release, "linux_amd64", liar.url("/overlong.zip"));
            // The liar is the origin's download host, on an internal address: configured for it.
            try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("overlong-cache"), fixture.origin())
                    .set(
                            "upstream.hosts.example\\.test.downloadHosts",
                            List.of(liar.url("/").getAuthority()))
                    .start()) {
                assertThat(fetchCompletes(mirror, archivePath("overlong"), announced))
                        .isFalse();
                try (Stream<Path> files = cachedFilesOf(mirror, "overlong")) {
                    assertThat(files).isEmpty();
                }

                honest.set(true);
                HttpResponse<byte[]> healed = mirror.get(archivePath("overlong"));
                assertThat(healed.statusCode()).isEqualTo(200);
                assertThat(healed.body()).isEqualTo(genuine);
            }
        }
    }

    /** True when a GET of {@code path} ended with a complete 200 body of {@code length} bytes. */
    private static boolean fetchCompletes(String path, int length) throws InterruptedException {
        return fetchCompletes(fixture.mirror(), path, length);
    }

    private static boolean fetchCompletes(MirrorFixture mirror, String path, int length) throws InterruptedException {
        try {
            HttpResponse<byte[]> response = mirror.get(path);
            if (response.statusCode() != 200) {
                assertThat(response.statusCode()).isEqualTo(502);
                return false;
            }
            return response.body().length == length;
        } catch (IOException aborted) {
            return false;
        }
    }

    @Test
    void garbageFromTheOriginIsA502NamingItAndIsNotCached() throws Exception {
        fixture.origin().publish("acme", "garbage", "1.0.0", "linux_amd64");
        fixture.origin()
                .wireMock()
                .stubFor(get(urlEqualTo("/v1/providers/acme/garbage/versions"))
                        .willReturn(aResponse()
                                .withHeader("Content-Type", "application/json")
                                .withBody("<html>maintenance</html>")));
        String index = fixture.mirror().providerPath("acme", "garbage") + "index.json";

        HttpResponse<byte[]> response = fixture.mirror().get(index);

        assertThat(response.statusCode()).isEqualTo(502);
        assertThat(error(response)).contains("example.test/acme/garbage").contains("not valid JSON");
        fixture.origin().publish("acme", "garbage", "1.0.1", "linux_amd64");
        HttpResponse<byte[]> healed = fixture.mirror().get(index);
        assertThat(healed.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(healed.body()).get("versions").has("1.0.1")).isTrue();
    }

    @Test
    void aRedirectLoopIsA502() throws Exception {
        FakeOrigin.Release release = fixture.origin().publish("acme", "loop", "1.0.0", "linux_amd64");
        fixture.origin()
                .wireMock()
                .stubFor(get(urlEqualTo(release.archivePath("linux_amd64")))
                        .willReturn(aResponse()
                                .withStatus(302)
                                .withHeader("Location", release.archivePath("linux_amd64"))));

        HttpResponse<byte[]> response = fixture.mirror().get(archivePath("loop"));

        assertThat(response.statusCode()).isEqualTo(502);
        assertThat(error(response)).contains("example.test/acme/loop").contains("redirected more than 3 times");
    }

    @Test
    void anOriginWhoseCertificateIsNotTrustedIsA502SayingTlsFailed() throws Exception {
        TestCertificates stranger = TestCertificates.create(tmp.resolve("stranger"), "stranger");
        try (MirrorFixture distrustful = MirrorFixture.builder(tmp.resolve("tls-cache"), fixture.origin())
                .set("upstream.trustedCertificates", stranger.caPem().toString())
                .start()) {
            fixture.origin().publish("acme", "tls", "1.0.0", "linux_amd64");

            HttpResponse<byte[]> response = distrustful.get(distrustful.providerPath("acme", "tls") + "index.json");

            assertThat(response.statusCode()).isEqualTo(502);
            assertThat(error(response))
                    .contains("TLS with 127.0.0.1:"
                            + fixture.origin().discoveryUrl().getPort() + " failed")
                    .contains("upstream.trustedCertificates");
        }
    }
}
