package io.providermirror.upstream;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import io.providermirror.testkit.RawHttpsServer;
import io.providermirror.testkit.TestCertificates;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Archives come through Netty's client with the guarantees the JDK's client gave them: the origin's certificate must
 * name the host (with OpenSSL as with the JDK's TLS), the connection goes to the address the destination check
 * allowed and nowhere else, and a body arrives whole or fails, never cut short in silence.
 */
final class ArchiveTransferTest {

    @TempDir
    static Path tmp;

    private static TestCertificates certificates;

    @BeforeAll
    static void certificates() {
        // Its server certificate names localhost and 127.0.0.1 only.
        certificates = TestCertificates.create(tmp.resolve("tls"), "transfer");
    }

    private static OriginHttpClient client(
            boolean nativeTransport, InternalAuthorities internal, OriginHttpClient.Resolver resolver)
            throws IOException {
        return new OriginHttpClient(
                new OriginHttpClient.Settings(
                        OriginClients.GENEROUS,
                        OriginClients.GENEROUS,
                        OriginClients.GENEROUS,
                        OriginTrust.of(certificates.caPem()),
                        "test",
                        3,
                        1024,
                        new RetryPolicy(1, Duration.ofMillis(1), Duration.ofMillis(5)),
                        false,
                        internal,
                        null,
                        nativeTransport),
                duration -> {},
                OriginObserver.NONE,
                resolver);
    }

    private static void respond(OutputStream out, String head, byte[] body) throws IOException {
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(body);
    }

    private static byte[] randomBytes(int size) {
        byte[] bytes = new byte[size];
        new Random(size).nextBytes(bytes);
        return bytes;
    }

    /** Reads the whole body through {@link OriginHttpClient.ArchiveStream#chunks()}, as a fill does. */
    private static byte[] readChunks(OriginHttpClient.ArchiveStream archive) throws IOException {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        ByteBuffer chunk;
        while ((chunk = archive.chunks().next()) != null) {
            byte[] part = new byte[chunk.remaining()];
            chunk.get(part);
            all.write(part);
        }
        return all.toByteArray();
    }

    @ParameterizedTest(name = "native transport: {0}")
    @ValueSource(booleans = {true, false})
    void aTrustedCertificateThatDoesNotNameTheHostIsRefused(boolean nativeTransport) throws Exception {
        byte[] body = randomBytes(100_000);
        AtomicInteger requests = new AtomicInteger();
        try (RawHttpsServer server = RawHttpsServer.start(certificates, out -> {
            requests.incrementAndGet();
            respond(out, "HTTP/1.1 200 OK\r\nContent-Length: " + body.length + "\r\n\r\n", body);
        })) {
            int port = server.url("/").getPort();
            // origin.test leads to the server too, but its certificate (from a trusted CA) does not name it.
            OriginHttpClient.Resolver resolver = host ->
                    host.equals("origin.test") ? InetAddress.getAllByName("127.0.0.1") : InetAddress.getAllByName(host);
            try (OriginHttpClient client = client(nativeTransport, (origin, host, p) -> true, resolver)) {
                try (OriginHttpClient.ArchiveStream archive =
                        client.openArchive("origin.test", server.url("/a.zip"), "the archive of origin.test/acme/a")) {
                    assertThat(readChunks(archive))
                            .as("the name on the certificate is accepted")
                            .isEqualTo(body);
                }

                assertThatThrownBy(() -> client.openArchive(
                                "origin.test",
                                URI.create("https://origin.test:" + port + "/a.zip"),
                                "the archive of origin.test/acme/a"))
                        .isInstanceOfSatisfying(
                                OriginException.class,
                                e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.UNAVAILABLE))
                        .hasMessageContaining("the archive of origin.test/acme/a")
                        .hasMessageContaining("TLS with origin.test:" + port + " failed");
                assertThat(requests)
                        .as("no request was sent over the connection whose certificate names another host")
                        .hasValue(1);
            }
        }
    }

    @Test
    void anArchiveConnectsToTheAddressTheCheckAllowedNotToWhatTheNameResolvesToLater() throws Exception {
        WireMockServer internal =
                new WireMockServer(WireMockConfiguration.options().dynamicPort());
        internal.start();
        try {
            internal.stubFor(get(urlEqualTo("/a.zip")).willReturn(aResponse().withBody("internal")));
            // DNS rebinding: the name resolves to a public address for the check, then to loopback.
            AtomicInteger lookups = new AtomicInteger();
            OriginHttpClient.Resolver rebinding = host -> lookups.getAndIncrement() == 0
                    ? new InetAddress[] {InetAddress.getByName("93.184.216.34")}
                    : new InetAddress[] {InetAddress.getLoopbackAddress()};
            try (OriginHttpClient client = client(true, InternalAuthorities.NONE, rebinding)) {
                assertThatThrownBy(() -> client.openArchive(
                                "a.test",
                                URI.create("http://localhost:" + internal.port() + "/a.zip"),
                                "the archive of a.test/acme/a"))
                        .isInstanceOf(OriginException.class)
                        .hasMessageContaining("the archive of a.test/acme/a");
            }
            assertThat(internal.getAllServeEvents())
                    .as("the internal service the name pointed at later was never asked")
                    .isEmpty();
        } finally {
            internal.stop();
        }
    }

    @ParameterizedTest(name = "native transport: {0}")
    @ValueSource(booleans = {true, false})
    void aChunkedBodyArrivesWholeAndACutOneFails(boolean nativeTransport) throws Exception {
        byte[] body = randomBytes(3 * 1024 * 1024 + 17);
        String head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
        try (RawHttpsServer whole = RawHttpsServer.start(certificates, out -> {
                    out.write(head.getBytes(StandardCharsets.US_ASCII));
                    for (int at = 0; at < body.length; at += 100_000) {
                        int n = Math.min(100_000, body.length - at);
                        out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                        out.write(body, at, n);
                        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                    }
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                });
                RawHttpsServer cut = RawHttpsServer.start(certificates, out -> {
                    out.write(head.getBytes(StandardCharsets.US_ASCII));
                    out.write("186a0\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.write(body, 0, 50_000);
                    // ... and the connection closes, half-way through a chunk.
                });
                OriginHttpClient client =
                        client(nativeTransport, (origin, host, p) -> true, InetAddress::getAllByName)) {
            try (OriginHttpClient.ArchiveStream archive = client.openArchive("a.test", whole.url("/a.zip"), "a")) {
                assertThat(archive.contentLength()).isEmpty();
                byte[] received = readChunks(archive);
                assertThat(MessageDigest.getInstance("SHA-256").digest(received))
                        .isEqualTo(MessageDigest.getInstance("SHA-256").digest(body));
            }
            try (OriginHttpClient.ArchiveStream archive = client.openArchive("a.test", cut.url("/a.zip"), "a")) {
                assertThatThrownBy(() -> readChunks(archive))
                        .isInstanceOf(IOException.class)
                        .hasMessageContaining("closed the connection before the body ended");
            }
        }
    }
}
