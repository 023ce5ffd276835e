package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.providermirror.server.app.MirrorApplication;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.server.config.MirrorConfig;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Clients that make a mistake get told, and cost the log one line: plain HTTP on the HTTPS port is answered
 * with a 400 that says to use https://; a client that does not trust the certificate is logged once, with
 * what it must trust, and no stack trace.
 */
final class ClientMistakesTest {

    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    @TempDir
    Path tmp;

    private MirrorApplication mirror;

    @BeforeEach
    void start() throws Exception {
        lines.start();
        root.addAppender(lines);
        MirrorConfig config = new ConfigLoader(Map.of()).loadText("""
                server: {host: 127.0.0.1, port: 0}
                cache: {directory: '%s'}
                """.formatted(tmp.resolve("cache")));
        mirror = MirrorApplication.start(config, Clock.systemUTC());
    }

    @AfterEach
    void stop() {
        mirror.close();
        root.detachAppender(lines);
    }

    @Test
    void plainHttpOnTheHttpsPortIsAnswered400WithAHintToUseHttps() throws Exception {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), mirror.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write("GET /providers/ HTTP/1.1\r\nHost: mirror\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(response)
                    .startsWith("HTTP/1.1 400 Bad Request\r\n")
                    .contains("Connection: close")
                    .endsWith("use an https:// URL.\n");
        }
        assertThat(logged()).noneMatch(event -> event.getThrowableProxy() != null);
    }

    @Test
    void aClientThatDoesNotTrustTheCertificateCostsOneLineNamingTheCaAndNoStackTrace() throws Exception {
        HttpClient untrusting =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create("https://localhost:" + mirror.port() + "/providers/"))
                .timeout(Duration.ofSeconds(10))
                .build();
        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(() -> untrusting.send(request, HttpResponse.BodyHandlers.discarding()))
                    .isInstanceOf(javax.net.ssl.SSLHandshakeException.class);
        }
        String ca = mirror.generatedCaFile().orElseThrow().toAbsolutePath().toString();
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> !handshakeLines().isEmpty());
        List<ILoggingEvent> handshakes = handshakeLines();
        assertThat(handshakes).hasSize(1);
        assertThat(handshakes.get(0).getLevel()).isEqualTo(Level.WARN);
        // The JDK's client closes without an alert; Go's (terraform) sends "bad certificate": both name the CA.
        assertThat(handshakes.get(0).getFormattedMessage())
                .startsWith("TLS handshake from 127.0.0.1 failed: the client ")
                .contains("does not trust this certificate")
                .endsWith("; clients must trust " + ca + " (this mirror's own CA)");
        assertThat(logged()).noneMatch(event -> event.getThrowableProxy() != null);
    }

    private List<ILoggingEvent> handshakeLines() {
        return logged().stream()
                .filter(event -> event.getFormattedMessage().startsWith("TLS handshake from"))
                .toList();
    }

    /** What was logged so far (the appender adds under its own lock, from the event loops). */
    private List<ILoggingEvent> logged() {
        synchronized (lines) {
            return List.copyOf(lines.list);
        }
    }
}
