package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.server.app.MirrorApplication;
import io.providermirror.testkit.FakeOriginExtension;
import io.providermirror.testkit.TestCertificates;
import io.providermirror.upstream.TrustedCertificates;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The listeners' TLS context carries a trust manager that refuses every certificate (so that Netty does not read
 * the JDK's CA store at start-up for one nothing uses): it must not turn on client authentication. A client that
 * holds a certificate is not asked for it and is answered, with OpenSSL and with the JDK's TLS alike.
 */
final class ListenerTrustTest {

    @TempDir
    Path tmp;

    @RegisterExtension
    static final FakeOriginExtension fixture = new FakeOriginExtension();

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aClientHoldingACertificateIsNotAskedForItAndIsAnswered(boolean nativeTransport) throws Exception {
        TestCertificates client = TestCertificates.create(tmp.resolve("client"), "client");
        try (MirrorApplication mirror = MirrorApplication.start(
                MirrorFixture.builder(tmp.resolve("mirror"), fixture.origin())
                        .set("server.nativeTransport", nativeTransport)
                        .config(),
                Clock.systemUTC())) {
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(
                    keyManagers(client),
                    new TrustManager[] {
                        TrustedCertificates.trustManager(
                                mirror.generatedCaFile().orElseThrow())
                    },
                    null);
            try (SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", mirror.port())) {
                socket.setSoTimeout(10_000);
                socket.startHandshake();
                assertThat(socket.getSession().getLocalCertificates())
                        .as("the client's certificate, sent only when asked for")
                        .isNull();
                OutputStream out = socket.getOutputStream();
                out.write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                assertThat(readAll(socket.getInputStream())).startsWith("HTTP/1.1 200 ");
            }
        }
    }

    private static javax.net.ssl.KeyManager[] keyManagers(TestCertificates certificates) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(certificates.keyStore())) {
            store.load(in, certificates.password().toCharArray());
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, certificates.password().toCharArray());
        return keys.getKeyManagers();
    }

    private static String readAll(InputStream in) throws Exception {
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        try {
            in.transferTo(received);
        } catch (SocketException reset) {
            // A reset after the answer is as good as a close.
        }
        return received.toString(StandardCharsets.ISO_8859_1);
    }
}
