package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.upstream.TrustedCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/** One access-log line per request, with the fields operators search by; aborted and abandoned requests too. */
final class AccessLogTest {

    @RegisterExtension
    static final MirrorExtension fixture = MirrorExtension.withDefaults();

    private static final ListAppender<ILoggingEvent> LINES = new ListAppender<>();

    @BeforeAll
    static void start() {
        Logger access = (Logger) LoggerFactory.getLogger("io.providermirror.access");
        LINES.start();
        access.addAppender(LINES);
    }

    @AfterAll
    static void stop() {
        ((Logger) LoggerFactory.getLogger("io.providermirror.access")).detachAppender(LINES);
    }

    @BeforeEach
    void clear() {
        LINES.list.clear();
    }

    private static Map<String, Object> fields(ILoggingEvent event) {
        return event.getKeyValuePairs().stream().collect(Collectors.toMap(kv -> kv.key, kv -> kv.value));
    }

    private static List<ILoggingEvent> linesFor(String path) {
        return LINES.list.stream()
                .filter(e -> path.equals(fields(e).get("path")))
                .toList();
    }

    /**
     * A {@code 100 Continue} is not the exchange's answer: the line carries the final status, once, with its route.
     */
    @Test
    void aRequestThatExpects100ContinueIsLoggedOnceWithItsFinalAnswer() throws Exception {
        String path = fixture.mirror().providerPath("acme", "continued") + "index.json";
        String finalHead;
        try (SSLSocket socket = RawTls.connect(fixture.mirror().mirror, 30_000)) {
            var out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n"
                            + "Expect: 100-continue\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            assertThat(RawTls.head(in)).startsWith("HTTP/1.1 100 Continue\r\n");
            out.write("{}".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            finalHead = RawTls.head(in);
        }
        int status = Integer.parseInt(finalHead.substring(9, 12));
        assertThat(status).isNotEqualTo(100);

        await().atMost(Duration.ofSeconds(10)).until(() -> linesFor(path).size() == 1);
        assertThat(fields(linesFor(path).get(0)))
                .containsEntry("status", status)
                .containsEntry("route", "index");
        assertThat(LINES.list)
                .noneMatch(line -> Integer.valueOf(100).equals(fields(line).get("status")));
    }

    /**
     * A request pipelined behind one that asks for close is neither acted on nor logged (RFC 9112, section 9.6): it
     * was handed on once the first answer (here a 405, which turns no reading off) was written, routed to the origin,
     * and logged without its request line.
     */
    @Test
    void aRequestPipelinedBehindConnectionCloseIsNeitherActedOnNorLogged() throws Exception {
        String behind = fixture.mirror().providerPath("acme", "behindclose") + "index.json";
        String answers;
        try (SSLSocket socket = RawTls.connect(fixture.mirror().mirror, 30_000)) {
            var out = socket.getOutputStream();
            out.write(("DELETE /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n" + "GET " + behind
                            + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            answers = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
        assertThat(answers).startsWith("HTTP/1.1 405 ").containsOnlyOnce("HTTP/1.1 ");

        // A request of its own afterwards is logged and reaches the origin; the one behind the close never did.
        String marker = fixture.mirror().providerPath("acme", "markerclose") + "index.json";
        assertThat(fixture.mirror().get(marker).statusCode()).isEqualTo(404);
        await().atMost(Duration.ofSeconds(10)).until(() -> linesFor(marker).size() == 1);
        assertThat(linesFor("/healthz")).hasSize(1);
        assertThat(linesFor(behind)).isEmpty();
        assertThat(LINES.list).noneMatch(line -> "-".equals(fields(line).get("path")));
        assertThat(fixture.origin().requestsMatching(".*/behindclose/.*")).isZero();
    }

    @Test
    void aTokenAClientPutsInTheQueryStringIsNotLogged() throws Exception {
        String path = fixture.mirror().providerPath("acme", "queried") + "index.json";
        HttpResponse<byte[]> response = fixture.mirror()
                .send(HttpRequest.newBuilder(
                                fixture.mirror().url(path + "?token=s3cr3t-t0ken&expires=17&X-Api-Key=k3y&archive=zip"))
                        .build());
        assertThat(response.statusCode()).isLessThan(500);

        await().atMost(Duration.ofSeconds(5))
                .until(() -> linesFor(path + "?expires=17&archive=zip").size() == 1);
        ILoggingEvent line = linesFor(path + "?expires=17&archive=zip").get(0);
        assertThat(line.getFormattedMessage()).doesNotContain("s3cr3t-t0ken", "k3y", "token");
    }

    @Test
    void eachRequestGetsOneLineWithClientMethodPathStatusBytesDurationAndUserAgent() throws Exception {
        FakeOrigin.Release release = fixture.origin().publish("acme", "logged", "1.0.0", "linux_amd64");
        String path =
                fixture.mirror().providerPath("acme", "logged") + "terraform-provider-logged_1.0.0_linux_amd64.zip";
        HttpResponse<byte[]> response = fixture.mirror()
                .send(HttpRequest.newBuilder(fixture.mirror().url(path))
                        .header("User-Agent", "Terraform/1.11.4")
                        .build());
        assertThat(response.statusCode()).isEqualTo(200);

        await().atMost(Duration.ofSeconds(30)).until(() -> linesFor(path).size() == 1);
        ILoggingEvent line = linesFor(path).get(0);
        Map<String, Object> fields = fields(line);
        assertThat(fields)
                .containsEntry("client", "127.0.0.1")
                .containsEntry("method", "GET")
                .containsEntry("status", 200)
                .containsEntry("bytes", (long) release.archives().get("linux_amd64").length)
                .containsEntry("userAgent", "Terraform/1.11.4")
                .containsEntry("route", "archive")
                .containsEntry("clientName", "anonymous")
                .containsEntry("aborted", false);
        assertThat((Long) fields.get("durationMs")).isNotNegative();
        assertThat(line.getFormattedMessage())
                .isEqualTo("127.0.0.1 anonymous \"GET " + path + "\" 200 " + fields.get("bytes") + " "
                        + fields.get("durationMs") + "ms \"Terraform/1.11.4\"");
    }

    @Test
    void errorsAreLoggedWithTheirStatus() throws Exception {
        String path = "/providers/EXAMPLE/acme/x/index.json";
        assertThat(fixture.mirror().get(path).statusCode()).isEqualTo(400);

        await().atMost(Duration.ofSeconds(30)).until(() -> linesFor(path).size() == 1);
        assertThat(fields(linesFor(path).get(0))).containsEntry("status", 400).containsEntry("route", "invalid");
    }

    @Test
    void anAbortedTransferIsLoggedAsAborted() throws Exception {
        FakeOrigin.Release release = fixture.origin()
                .publish("acme", "cutshort", "1.0.0", FakeOrigin.Tamper.ARCHIVE_BYTES, 300_000, "linux_amd64");
        byte[] tampered = fixture.origin().serveTamperedSlowly(release, "linux_amd64", 10, 500);
        String path =
                fixture.mirror().providerPath("acme", "cutshort") + "terraform-provider-cutshort_1.0.0_linux_amd64.zip";
        HttpResponse<InputStream> response = fixture.mirror()
                .client
                .send(
                        HttpRequest.newBuilder(fixture.mirror().url(path)).build(),
                        HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = response.body()) {
            body.readAllBytes();
        } catch (IOException expected) {
            // The mirror ends the response when the hash fails.
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> linesFor(path).size() == 1);
        Map<String, Object> fields = fields(linesFor(path).get(0));
        assertThat(fields).containsEntry("status", 200).containsEntry("aborted", true);
        assertThat((Long) fields.get("bytes")).isLessThan(tampered.length);
        assertThat(linesFor(path).get(0).getFormattedMessage()).endsWith(" aborted");
    }

    @Test
    void aClientThatGivesUpBeforeTheAnswerIsLoggedAsAborted() throws Exception {
        fixture.origin()
                .wireMock()
                .stubFor(get(urlEqualTo("/v1/providers/acme/patience/versions"))
                        .willReturn(aResponse()
                                .withFixedDelay(2_000)
                                .withHeader("Content-Type", "application/json")
                                .withBody("{\"versions\":[]}")));
        String path = fixture.mirror().providerPath("acme", "patience") + "index.json";
        try (SSLSocket socket = (SSLSocket) TrustedCertificates.sslContext(
                        fixture.mirror().mirror.generatedCaFile().orElseThrow())
                .getSocketFactory()
                .createSocket("127.0.0.1", fixture.mirror().mirror.port())) {
            socket.getOutputStream()
                    .write(("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
        }

        // The mirror reads nothing while it answers (that is its backpressure), so it learns that the client
        // left when the answer cannot be written: the line says what was attempted, and that it was aborted.
        await().atMost(Duration.ofSeconds(10)).until(() -> linesFor(path).size() == 1);
        assertThat(fields(linesFor(path).get(0)))
                .containsEntry("route", "index")
                .containsEntry("aborted", true);
    }

    @Test
    void untrustedTextIsEscapedInTheLine() throws Exception {
        try (SSLSocket socket = (SSLSocket) TrustedCertificates.sslContext(
                        fixture.mirror().mirror.generatedCaFile().orElseThrow())
                .getSocketFactory()
                .createSocket("127.0.0.1", fixture.mirror().mirror.port())) {
            socket.getOutputStream()
                    .write(("GET /nothing HTTP/1.1\r\nHost: x\r\nUser-Agent: evil\" \\ \u00e9\r\n"
                                    + "Connection: close\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            socket.getInputStream().readAllBytes();
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> linesFor("/nothing").size() == 1);
        assertThat(fields(linesFor("/nothing").get(0)).get("userAgent")).isEqualTo("evil\\x22 \\x5c \\xe9");
        assertThat(linesFor("/nothing").get(0).getFormattedMessage()).endsWith(" \"evil\\x22 \\x5c \\xe9\"");
    }
}
