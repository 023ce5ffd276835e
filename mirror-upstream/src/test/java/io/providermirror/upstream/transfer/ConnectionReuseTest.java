package io.providermirror.upstream.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.providermirror.testkit.KeepAliveHttpsServer;
import io.providermirror.testkit.RawHttpsServer;
import io.providermirror.testkit.TestCertificates;
import io.providermirror.upstream.TrustedCertificates;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Connections to origins are kept and reused, and only where that is safe: the next archive from exactly the same
 * checked address, port and TLS host name goes over the connection the last one came on, while another port or
 * another name gets a connection of its own, a body the reader gave up on (or one the origin ends with
 * {@code Connection: close}) closes its connection, idle ones close after their timeout, and the pool keeps no more
 * than its bounds. Observed at the origin, by the TCP connections it accepts and sees closed.
 */
final class ConnectionReuseTest {

    /** Deadlines for connections and answers: generous, since no test here is about them and a busy machine is slow. */
    private static final Duration GENEROUS = Duration.ofSeconds(60);

    private static final byte[] SMALL = "a small archive".getBytes(StandardCharsets.US_ASCII);
    /** Far more than the client reads ahead (1 MiB) and the sockets buffer, so the origin waits for the reader. */
    private static final byte[] LARGE = new byte[8 * 1024 * 1024];

    @TempDir
    static Path tmp;

    private static TestCertificates certificates;

    @BeforeAll
    static void certificates() {
        // Its server certificate names localhost and 127.0.0.1.
        certificates = TestCertificates.create(tmp.resolve("tls"), "reuse");
        Arrays.fill(LARGE, (byte) 'x');
    }

    private static TransferClient client(boolean nativeTransport, ConnectionReuse reuse) throws IOException {
        return new TransferClient(
                TrustedCertificates.trustManager(certificates.caPem()), nativeTransport, reuse, GENEROUS, GENEROUS);
    }

    private static KeepAliveHttpsServer origin() {
        return KeepAliveHttpsServer.start(certificates, path -> path.startsWith("/large") ? LARGE : SMALL);
    }

    /** A GET of {@code path} at {@code host}:{@code port}, connecting to 127.0.0.1 (as the check allowed). */
    private static TransferRequest request(String host, int port, String path) {
        return new TransferRequest(
                URI.create("https://" + host + ":" + port + path),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                null,
                Map.of(),
                GENEROUS,
                GENEROUS,
                GENEROUS);
    }

    private static byte[] readAll(TransferResponse response) throws IOException {
        try (response) {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            ByteBuffer chunk;
            while ((chunk = response.next()) != null) {
                byte[] part = new byte[chunk.remaining()];
                chunk.get(part);
                all.write(part);
            }
            return all.toByteArray();
        }
    }

    @ParameterizedTest(name = "native transport: {0}")
    @ValueSource(booleans = {true, false})
    void theNextArchiveFromTheSameOriginGoesOverTheSameConnection(boolean nativeTransport) throws Exception {
        try (KeepAliveHttpsServer origin = origin();
                TransferClient client = client(nativeTransport, ConnectionReuse.DEFAULT)) {
            for (int i = 0; i < 3; i++) {
                assertThat(readAll(client.send(request("127.0.0.1", origin.port(), "/large-" + i + ".zip"))))
                        .isEqualTo(LARGE);
            }
            assertThat(origin.requests()).isEqualTo(3);
            assertThat(origin.connectionsAccepted())
                    .as("three archives, one after the other, over one connection")
                    .isEqualTo(1);
        }
    }

    @Test
    void anotherPortOrAnotherHostNameGetsAConnectionOfItsOwn() throws Exception {
        try (KeepAliveHttpsServer first = origin();
                KeepAliveHttpsServer second = origin();
                TransferClient client = client(true, ConnectionReuse.DEFAULT)) {
            assertThat(readAll(client.send(request("127.0.0.1", first.port(), "/a.zip"))))
                    .isEqualTo(SMALL);
            assertThat(readAll(client.send(request("127.0.0.1", second.port(), "/a.zip"))))
                    .isEqualTo(SMALL);
            assertThat(second.connectionsAccepted())
                    .as("the other port was not reached over the first port's connection")
                    .isEqualTo(1);

            // The same address and port, another name for TLS (SNI and the certificate check): a new connection.
            assertThat(readAll(client.send(request("localhost", first.port(), "/a.zip"))))
                    .isEqualTo(SMALL);
            assertThat(first.connectionsAccepted()).isEqualTo(2);
            assertThat(first.requests()).isEqualTo(2);

            // And each is reused for exactly its own route.
            assertThat(readAll(client.send(request("127.0.0.1", first.port(), "/b.zip"))))
                    .isEqualTo(SMALL);
            assertThat(readAll(client.send(request("localhost", first.port(), "/b.zip"))))
                    .isEqualTo(SMALL);
            assertThat(first.connectionsAccepted()).isEqualTo(2);
        }
    }

    @Test
    void aRouteIsTheExactCheckedAddressPortAndHostName() throws Exception {
        TransferRequest loopback = request("origin.test", 443, "/a.zip");
        TransferRequest other = new TransferRequest(
                URI.create("https://origin.test:443/b.zip"),
                new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 443),
                null,
                Map.of(),
                Duration.ofSeconds(1),
                Duration.ofSeconds(1),
                Duration.ofSeconds(1));
        assertThat(ConnectionRoute.of(loopback)).isEqualTo(ConnectionRoute.of(request("origin.test", 443, "/c.zip")));
        assertThat(ConnectionRoute.of(loopback)).isNotEqualTo(ConnectionRoute.of(other));
        assertThat(ConnectionRoute.of(loopback)).isNotEqualTo(ConnectionRoute.of(request("other.test", 443, "/a.zip")));
    }

    @Test
    void aBodyTheReaderGaveUpOnClosesItsConnection() throws Exception {
        try (KeepAliveHttpsServer origin = origin();
                TransferClient client = client(true, ConnectionReuse.DEFAULT)) {
            TransferResponse cut = client.send(request("127.0.0.1", origin.port(), "/large.zip"));
            assertThat(cut.next()).isNotNull();
            cut.close();
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(origin.connectionsOpen())
                            .as("the connection of the unfinished body was closed")
                            .isZero());

            assertThat(readAll(client.send(request("127.0.0.1", origin.port(), "/a.zip"))))
                    .isEqualTo(SMALL);
            assertThat(origin.connectionsAccepted()).isEqualTo(2);
        }
    }

    @Test
    void anAnswerWithConnectionCloseIsNotReused() throws Exception {
        try (KeepAliveHttpsServer origin = origin();
                TransferClient client = client(true, ConnectionReuse.DEFAULT)) {
            assertThat(readAll(client.send(request("127.0.0.1", origin.port(), "/a.zip?close"))))
                    .isEqualTo(SMALL);
            assertThat(readAll(client.send(request("127.0.0.1", origin.port(), "/a.zip"))))
                    .isEqualTo(SMALL);
            assertThat(origin.connectionsAccepted()).isEqualTo(2);
        }
    }

    @Test
    void anOriginThatClosesAfterEachAnswerIsAskedAgainOnANewConnection() throws Exception {
        // HTTP/1.1 without Connection: close, and the socket closed after each answer: a kept connection that is dead.
        try (RawHttpsServer origin = RawHttpsServer.start(
                        certificates,
                        out -> out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + SMALL.length + "\r\n\r\n"
                                        + new String(SMALL, StandardCharsets.US_ASCII))
                                .getBytes(StandardCharsets.US_ASCII)));
                TransferClient client = client(true, ConnectionReuse.DEFAULT)) {
            int port = origin.url("/").getPort();
            for (int i = 0; i < 3; i++) {
                assertThat(readAll(client.send(request("127.0.0.1", port, "/a.zip"))))
                        .isEqualTo(SMALL);
            }
        }
    }

    @Test
    void idleConnectionsCloseAfterTheirTimeout() throws Exception {
        try (KeepAliveHttpsServer origin = origin();
                TransferClient client = client(true, new ConnectionReuse(4, 32, Duration.ofMillis(300)))) {
            assertThat(readAll(client.send(request("127.0.0.1", origin.port(), "/a.zip"))))
                    .isEqualTo(SMALL);
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(origin.connectionsOpen()).isZero());
            assertThat(readAll(client.send(request("127.0.0.1", origin.port(), "/a.zip"))))
                    .isEqualTo(SMALL);
            assertThat(origin.connectionsAccepted()).isEqualTo(2);
        }
    }

    @Test
    void thePoolKeepsNoMoreThanItsBoundsPerRouteAndInAll() throws Exception {
        try (KeepAliveHttpsServer first = origin();
                KeepAliveHttpsServer second = origin();
                TransferClient client = client(true, new ConnectionReuse(2, 3, Duration.ofSeconds(30)))) {
            concurrently(client, first, 4);
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(first.connectionsOpen())
                            .as("two of the four connections kept for the route, two closed")
                            .isEqualTo(2));
            concurrently(client, second, 2);
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(second.connectionsOpen())
                            .as("one kept: three in all")
                            .isEqualTo(1));
            assertThat(first.connectionsOpen()).isEqualTo(2);
            assertThat(client.idleConnections()).isEqualTo(3);
        }
    }

    /** {@code n} large archives at once, so each needs a connection of its own, then read to their ends. */
    private static void concurrently(TransferClient client, KeepAliveHttpsServer origin, int n) throws Exception {
        List<TransferResponse> responses = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            responses.add(client.send(request("127.0.0.1", origin.port(), "/large-" + i + ".zip")));
        }
        assertThat(origin.connectionsAccepted()).isEqualTo(n);
        for (TransferResponse response : responses) {
            assertThat(readAll(response)).hasSize(LARGE.length);
        }
    }
}
