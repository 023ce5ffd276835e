package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.FakeOrigin;
import io.providermirror.upstream.transfer.TransferClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OriginHttpClient#prepare()} makes ahead of time what the first origin request would make on its own time
 * (the trust, the document client, the archive client), and the requests that follow use exactly what it made:
 * nothing is made a second time; offline, nothing is made.
 */
final class OriginClientPrepareTest {

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
    void prepareMakesTheTrustAndBothClientsWhichTheFirstRequestsThenUse() throws IOException {
        FakeOrigin.Release release = origin.publish("acme", "ready", "1.0.0", "linux_amd64");
        OriginTrust trust = OriginTrust.of(origin.caCertificate());
        try (OriginHttpClient client = OriginClients.trusting(trust, OriginClients.GENEROUS)) {
            assertThat(client.isPrepared()).isFalse();
            assertThat(trust.isMade()).isFalse();

            client.prepare();

            assertThat(trust.isMade()).isTrue();
            assertThat(client.isPrepared()).isTrue();

            OriginHttpClient.Document discovery = client.getDocument(
                    "example.test",
                    origin.discoveryUrl().resolve(".well-known/terraform.json"),
                    "the discovery document of example.test",
                    OriginObserver.Operation.DISCOVERY);
            URI archive = origin.discoveryUrl()
                    .resolve(release.archivePath("linux_amd64").substring(1));
            try (OriginHttpClient.ArchiveStream stream = client.openArchive("example.test", archive, "the archive")) {
                assertThat(stream.body().readAllBytes())
                        .isEqualTo(release.archives().get("linux_amd64"));
            }

            assertThat(discovery.status()).isEqualTo(200);
            assertThat(client.isPrepared()).isTrue();
        }
    }

    @Test
    void theRequestsAfterPrepareUseTheClientsItMade() throws Exception {
        FakeOrigin.Release release = origin.publish("acme", "reused", "1.0.0", "linux_amd64");
        OriginHttpClient.Settings settings = new OriginHttpClient.Settings(
                OriginClients.GENEROUS,
                OriginClients.GENEROUS,
                OriginClients.GENEROUS,
                OriginTrust.of(origin.caCertificate()),
                "provider-mirror-test",
                3,
                64 * 1024,
                new RetryPolicy(1, Duration.ofMillis(10), Duration.ofMillis(50)),
                false,
                (o, host, port) -> true);
        OriginTransports transports = new OriginTransports(
                new DocumentTransport(settings), new ArchiveTransport(settings, InetAddress::getAllByName));
        try {
            assertThat(transports.isPrepared()).isFalse();

            transports.prepare();

            assertThat(transports.isPrepared()).isTrue();
            HttpClient documents = transports.documents().madeClient();
            TransferClient archives = transports.archives().madeClient();
            InetAddress loopback = InetAddress.getLoopbackAddress();
            URI discovery = origin.discoveryUrl().resolve(".well-known/terraform.json");
            DocumentTransport.DocumentHop document =
                    transports.documents().send(discovery, loopback, Map.of(), OriginClients.GENEROUS);
            assertThat(document.status()).isEqualTo(200);
            document.discard();
            URI archive = origin.discoveryUrl()
                    .resolve(release.archivePath("linux_amd64").substring(1));
            ArchiveTransport.ArchiveHop hop =
                    transports.archives().send(archive, loopback, Map.of(), OriginClients.GENEROUS);
            assertThat(hop.status()).isEqualTo(200);
            hop.close();

            assertThat(transports.documents().madeClient())
                    .as("the document client prepare() made")
                    .isSameAs(documents);
            assertThat(transports.archives().madeClient())
                    .as("the archive client prepare() made")
                    .isSameAs(archives);
        } finally {
            transports.archives().close();
        }
    }

    @Test
    void offlineNothingIsMade() throws IOException {
        OriginTrust trust = OriginTrust.of(origin.caCertificate());
        try (OriginHttpClient client = new OriginHttpClient(new OriginHttpClient.Settings(
                OriginClients.GENEROUS,
                OriginClients.GENEROUS,
                OriginClients.GENEROUS,
                trust,
                "provider-mirror-test",
                3,
                64 * 1024,
                new RetryPolicy(1, Duration.ofMillis(10), Duration.ofMillis(50)),
                true,
                (o, host, port) -> true))) {
            client.prepare();

            assertThat(client.isPrepared()).isFalse();
            assertThat(trust.isMade()).isFalse();
        }
    }
}
