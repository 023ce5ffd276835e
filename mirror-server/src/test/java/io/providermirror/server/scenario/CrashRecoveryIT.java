package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.StallingServer;
import io.providermirror.upstream.TrustedCertificates;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The packaged mirror is killed with SIGKILL during a cold download and restarted. */
final class CrashRecoveryIT {

    @TempDir
    Path tmp;

    private PackagedMirror start(Path config) throws Exception {
        return PackagedMirror.start(config, tmp.resolve("mirror-stderr.log"), java.util.Map.of());
    }

    private static List<Path> temporaryFiles(Path cache) throws IOException {
        try (Stream<Path> files = Files.list(cache.resolve("tmp"))) {
            return files.toList();
        }
    }

    @Test
    void aKillDuringAColdDownloadLeavesNothingPartialAndLosesNothingCommitted() throws Exception {
        FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
        FakeOrigin.Release kept = origin.publish("acme", "kept", "1.0.0", "linux_amd64");
        FakeOrigin.Release crash =
                origin.publish("acme", "crash", "1.0.0", FakeOrigin.Tamper.NONE, 3_000_000, "linux_amd64");
        byte[] genuine = crash.archives().get("linux_amd64");
        Path cache = tmp.resolve("cache");
        String keptPath = "/providers/example.test/acme/kept/terraform-provider-kept_1.0.0_linux_amd64.zip";
        String crashPath = "/providers/example.test/acme/crash/terraform-provider-crash_1.0.0_linux_amd64.zip";

        try (StallingServer slow = StallingServer.start(origin.certificates(), genuine, 1_000_000)) {
            origin.pointArchiveAt(crash, "linux_amd64", slow.url("/crash.zip"));
            // The stalling server is the origin's download host, on a second loopback port.
            Path config = Files.writeString(tmp.resolve("mirror.yaml"), """
                    server:
                      host: 127.0.0.1
                      port: 0
                    cache:
                      directory: %s
                    upstream:
                      trustedCertificates: %s
                      readTimeout: 120s
                      hosts:
                        example.test:
                          discoveryUrl: %s
                          downloadHosts: ["127.0.0.1:%d"]
                    """.formatted(
                            cache,
                            origin.caCertificate(),
                            origin.discoveryUrl(),
                            slow.url("/").getPort()));

            PackagedMirror first = start(config);
            HttpClient client = HttpClient.newBuilder()
                    .sslContext(TrustedCertificates.sslContext(MirrorFixtures.generatedCa(cache)))
                    .build();
            try {
                assertThat(get(client, first.port(), keptPath).body())
                        .isEqualTo(kept.archives().get("linux_amd64"));
                CompletableFuture<HttpResponse<byte[]>> inFlight =
                        client.sendAsync(request(first.port(), crashPath), HttpResponse.BodyHandlers.ofByteArray());
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> temporaryFiles(cache).stream()
                                .anyMatch(p -> p.toFile().length() >= 500_000));
                first.process().destroyForcibly();
                assertThat(first.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(inFlight).failsWithin(Duration.ofSeconds(30));
            } finally {
                first.process().destroyForcibly();
            }
            assertThat(temporaryFiles(cache))
                    .as("the kill left a half-written download")
                    .isNotEmpty();

            slow.heal();
            PackagedMirror second = start(config);
            try {
                assertThat(temporaryFiles(cache)).as("start-up removed it").isEmpty();
                HttpResponse<byte[]> keptAgain = get(client, second.port(), keptPath);
                assertThat(keptAgain.body()).isEqualTo(kept.archives().get("linux_amd64"));
                assertThat(origin.archiveDownloads(kept, "linux_amd64"))
                        .as("committed before the kill")
                        .isEqualTo(1);
                HttpResponse<byte[]> crashAgain = get(client, second.port(), crashPath);
                assertThat(crashAgain.statusCode()).isEqualTo(200);
                assertThat(crashAgain.body()).isEqualTo(genuine);
            } finally {
                second.process().destroy();
                second.process().waitFor(30, TimeUnit.SECONDS);
            }
        } finally {
            origin.close();
        }
    }

    private static HttpRequest request(int port, String path) {
        return HttpRequest.newBuilder(URI.create("https://localhost:" + port + path))
                .timeout(Duration.ofSeconds(60))
                .build();
    }

    private static HttpResponse<byte[]> get(HttpClient client, int port, String path) throws Exception {
        return client.send(request(port, path), HttpResponse.BodyHandlers.ofByteArray());
    }
}
