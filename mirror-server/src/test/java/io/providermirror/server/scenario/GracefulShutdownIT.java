package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.upstream.TrustedCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged mirror as operators run it: SIGTERM during an archive transfer lets the transfer finish,
 * refuses new connections, reports not ready, and exits 0; {@code logging.format: json} writes one JSON
 * object per line; {@code healthcheck} answers for container health checks.
 */
final class GracefulShutdownIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private int healthcheck(String url) throws Exception {
        Process check = PackagedMirror.command(
                        tmp.resolve("healthcheck.log"), Map.of(), List.of("healthcheck", "--url", url))
                .redirectOutput(tmp.resolve("healthcheck.out").toFile())
                .start();
        assertThat(check.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return check.exitValue();
    }

    @Test
    void sigtermLetsTransfersFinishRefusesNewConnectionsAndExitsZero() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"))) {
            FakeOrigin.Release release =
                    origin.publish("acme", "drain", "1.0.0", FakeOrigin.Tamper.NONE, 3_000_000, "linux_amd64");
            // About 4 s to transfer: long enough to stop the mirror in the middle of it.
            origin.serveSlowly(release, "linux_amd64", 40, 4_000);
            int managementPort = freePort();
            Path cache = tmp.resolve("cache");
            Path config = Files.writeString(tmp.resolve("mirror.yaml"), """
                    server: {host: 127.0.0.1, port: 0, shutdownGracePeriod: 30s}
                    cache: {directory: '%s'}
                    management: {host: 127.0.0.1, port: %d}
                    upstream:
                      trustedCertificates: '%s'
                      hosts: {example.test: {discoveryUrl: '%s'}}
                    """.formatted(
                            cache, managementPort, origin.caCertificate(), origin.discoveryUrl()));

            PackagedMirror mirror = PackagedMirror.start(
                    config, tmp.resolve("mirror.log"), Map.of("PROVIDER_MIRROR_LOGGING_FORMAT", "json"));
            try (mirror) {
                assertThat(healthcheck("http://127.0.0.1:" + managementPort + "/readyz"))
                        .isZero();
                assertThat(healthcheck("http://127.0.0.1:" + freePort() + "/readyz"))
                        .as("nothing listens there")
                        .isOne();

                HttpClient client = HttpClient.newBuilder()
                        .sslContext(TrustedCertificates.sslContext(MirrorFixtures.generatedCa(cache)))
                        .build();
                HttpResponse<InputStream> transfer = client.send(
                        HttpRequest.newBuilder(
                                        URI.create(
                                                "https://localhost:" + mirror.port()
                                                        + "/providers/example.test/acme/drain/terraform-provider-drain_1.0.0_linux_amd64.zip"))
                                .header("User-Agent", "Terraform/1.11.4")
                                .build(),
                        HttpResponse.BodyHandlers.ofInputStream());
                assertThat(transfer.statusCode()).isEqualTo(200);
                MessageDigest digest = MessageDigest.getInstance("SHA-256");
                try (InputStream body = transfer.body()) {
                    byte[] first = body.readNBytes(10_000);
                    digest.update(first);

                    mirror.process().destroy(); // SIGTERM

                    await().atMost(Duration.ofSeconds(10)).until(() -> refusesConnections(mirror.port()));
                    HttpResponse<String> ready = HttpClient.newHttpClient()
                            .send(
                                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/readyz"))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString());
                    assertThat(ready.statusCode()).as("draining is not ready").isEqualTo(503);
                    assertThat(ready.body()).contains("draining");
                    digest.update(body.readAllBytes());
                }
                assertThat(HexFormat.of().formatHex(digest.digest()))
                        .as("the whole archive arrived")
                        .isEqualTo(release.sha256("linux_amd64"));
                assertThat(mirror.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(mirror.process().exitValue()).isZero();
            }

            List<JsonNode> lines = new ArrayList<>();
            for (String line : Files.readAllLines(mirror.log())) {
                if (!line.isBlank()) {
                    lines.add(JSON.readTree(line));
                }
            }
            assertThat(lines).as("every log line is a JSON object").allMatch(JsonNode::isObject);
            assertThat(lines)
                    .anyMatch(line -> line.path("formattedMessage").asText().startsWith("shutting down"));
            JsonNode access = lines.stream()
                    .filter(line -> line.path("loggerName").asText().equals("io.providermirror.access")
                            && line.path("formattedMessage").asText().contains("/drain/"))
                    .findFirst()
                    .orElseThrow();
            Map<String, String> fields = new java.util.HashMap<>();
            access.path("kvpList")
                    .forEach(pair -> pair.properties()
                            .forEach(f -> fields.put(f.getKey(), f.getValue().asText())));
            assertThat(fields)
                    .containsEntry("status", "200")
                    .containsEntry("aborted", "false")
                    .containsEntry("bytes", String.valueOf(release.archives().get("linux_amd64").length))
                    .containsEntry("userAgent", "Terraform/1.11.4");
        }
    }

    private static boolean refusesConnections(int port) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return !socket.isConnected();
        } catch (IOException refused) {
            return true;
        }
    }
}
