package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.read.ListAppender;
import io.providermirror.server.logging.LogFormats;
import io.providermirror.server.logging.RedactingJsonEncoder;
import io.providermirror.testkit.FakeOrigin;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * What an origin puts in a URL or a message reaches logs, error bodies and the status page only made safe:
 * pre-signed download URLs lose their query strings (they are credentials), and control characters cannot
 * forge log lines. Every log line is checked as the built-in logging configuration writes it.
 */
final class SecretsInTextTest {

    private static final String SECRET = "SECRETSIGNATURE0123";

    @RegisterExtension
    static final MirrorExtension fixture = MirrorExtension.with((builder, directory) -> builder);

    private static final ListAppender<ILoggingEvent> EVENTS = new ListAppender<>();

    @BeforeAll
    static void start() {
        EVENTS.start();
        root().addAppender(EVENTS);
    }

    @AfterAll
    static void stop() {
        root().detachAppender(EVENTS);
    }

    @BeforeEach
    void clear() {
        EVENTS.list.clear();
    }

    private static Logger root() {
        return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    /**
     * The encoder of the built-in text format's stderr appender ({@link LogFormats#text}, what the mirror logs
     * with unless given a configuration), configured in a context of its own (the tests themselves log to a file
     * through {@code logback-test.xml}).
     */
    @SuppressWarnings("unchecked")
    private static Encoder<ILoggingEvent> shippedEncoder() {
        ch.qos.logback.classic.LoggerContext shipped = new ch.qos.logback.classic.LoggerContext();
        LogFormats.text(shipped);
        return ((OutputStreamAppender<ILoggingEvent>)
                        shipped.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("STDERR"))
                .getEncoder();
    }

    private static final Encoder<ILoggingEvent> ENCODER = shippedEncoder();

    /** Every captured event as the built-in configuration's encoder writes it to stderr. */
    private static List<String> logLines() {
        synchronized (EVENTS) {
            return List.copyOf(EVENTS.list).stream()
                    .map(event -> new String(ENCODER.encode(event), StandardCharsets.UTF_8))
                    .toList();
        }
    }

    private static String body(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    @Test
    void aPresignedDownloadUrlsQueryReachesNoLogLineErrorBodyOrStatusPage() throws Exception {
        FakeOrigin.Release release = fixture.origin().publish("acme", "presigned", "1.0.0", "linux_amd64");
        fixture.origin()
                .pointArchiveAt(
                        release,
                        "linux_amd64",
                        URI.create(fixture.origin().discoveryUrl() + "bucket/presigned.zip"
                                + "?X-Amz-Credential=AKIA%2F" + SECRET + "&X-Amz-Signature=" + SECRET));
        fixture.origin()
                .wireMock()
                .stubFor(get(urlPathEqualTo("/bucket/presigned.zip"))
                        .willReturn(aResponse().withStatus(403).withBody("<Error>SignatureDoesNotMatch</Error>")));

        HttpResponse<byte[]> response = fixture.mirror()
                .get(fixture.mirror().providerPath("acme", "presigned")
                        + "terraform-provider-presigned_1.0.0_linux_amd64.zip");

        assertThat(response.statusCode()).isBetween(400, 599);
        assertThat(body(response))
                .as("the error names the URL without its query")
                .contains("/bucket/presigned.zip?[redacted]")
                .doesNotContain(SECRET);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> logLines().stream().anyMatch(l -> l.contains("presigned.zip")));
        assertThat(logLines()).noneMatch(line -> line.contains(SECRET));
        String page = body(fixture.mirror().get("/"));
        assertThat(page).contains("presigned.zip").doesNotContain(SECRET);
    }

    @Test
    void controlCharactersFromAnOriginCannotForgeLogLines() throws Exception {
        FakeOrigin.Release release = fixture.origin().publish("acme", "forger", "1.0.0", "linux_amd64");
        String forged = "x\r\n2026-01-01T00:00:00.000Z INFO  [main] Mirror - all good\u001b[2J";
        fixture.origin()
                .pointArchiveAt(
                        release, "linux_amd64", URI.create(fixture.origin().discoveryUrl() + "files/forger.zip"));
        fixture.origin()
                .wireMock()
                .stubFor(get(urlPathEqualTo("/files/forger.zip"))
                        .willReturn(aResponse()
                                .withStatus(500)
                                .withStatusMessage(forged)
                                .withBody(forged)));
        fixture.origin()
                .wireMock()
                .stubFor(get(urlPathEqualTo("/v1/providers/acme/forger/1.0.0/download/linux/amd64"))
                        .willReturn(aResponse()
                                .withHeader("Content-Type", "application/json")
                                .withBody("{\"os\":\"linux\",\"arch\":\"amd64\",\"filename\":\"" + jsonEscaped(forged)
                                        + ".zip\",\"download_url\":\"/files/forger.zip\",\"shasum\":\""
                                        + release.sha256("linux_amd64")
                                        + "\",\"shasums_url\":\"/s\",\"shasums_signature_url\":\"/s.sig\","
                                        + "\"signing_keys\":{\"gpg_public_keys\":[]}}")));

        fixture.mirror()
                .get(fixture.mirror().providerPath("acme", "forger")
                        + "terraform-provider-forger_1.0.0_linux_amd64.zip");

        await().atMost(Duration.ofSeconds(30)).until(() -> logLines().stream().anyMatch(l -> l.contains("forger")));
        assertThat(logLines()).allSatisfy(line -> {
            assertThat(line.substring(0, line.length() - 1))
                    .as("one line")
                    .doesNotContain("\n")
                    .doesNotContain("\r");
            assertThat(line).doesNotContain("\u001b");
        });
        assertThat(String.join("", logLines())).contains("\\x0d\\x0a2026-01-01");
    }

    @Test
    void stackTracesKeepTheirLinesButMessagesInThemCannotStartOne() {
        Logger logger = (Logger) LoggerFactory.getLogger(SecretsInTextTest.class);
        logger.warn(
                "trouble",
                new IllegalStateException(
                        "bad\n2026-01-01 INFO forged https://h/p?token=" + SECRET,
                        new RuntimeException("inner\u001b[31m")));

        String line = logLines().get(0);
        assertThat(line)
                .doesNotContain(SECRET)
                .doesNotContain("\u001b")
                .contains("bad\\x0a2026-01-01 INFO forged https://h/p?[redacted]")
                .contains("\n\tat " + SecretsInTextTest.class.getName())
                .contains("\nCaused by: java.lang.RuntimeException: inner\\x1b[31m");
        assertThat(line.lines().skip(2))
                .as("what follows the message and the exception's first line")
                .allMatch(l -> l.startsWith("\t") || l.startsWith("Caused by: "));
    }

    @Test
    void jsonLogLinesLoseQueryStringsAndStayOneValidLine() throws Exception {
        RedactingJsonEncoder encoder = new RedactingJsonEncoder();
        encoder.setContext(root().getLoggerContext());
        encoder.setWithFormattedMessage(true);
        encoder.start();
        Logger logger = (Logger) LoggerFactory.getLogger(SecretsInTextTest.class);
        String line = new String(
                encoder.encode(new ch.qos.logback.classic.spi.LoggingEvent(
                        Logger.FQCN, logger, ch.qos.logback.classic.Level.WARN, "cannot get {}", null, new Object[] {
                            "https://127.0.0.1:1/x.zip" + "?X-Amz-Signature=" + SECRET + "\"\r\nforged\u001b[2J"
                        })),
                StandardCharsets.UTF_8);

        assertThat(line)
                .doesNotContain(SECRET)
                .doesNotContain("\u001b")
                .contains("https://127.0.0.1:1/x.zip?[redacted]");
        assertThat(line.strip()).doesNotContain("\n").doesNotContain("\r");
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(line)
                        .get("formattedMessage")
                        .asText())
                .startsWith("cannot get https://127.0.0.1:1/x.zip?[redacted]\"\r\nforged");
    }

    private static String jsonEscaped(String text) {
        StringBuilder out = new StringBuilder();
        for (char c : text.toCharArray()) {
            out.append(c < 0x20 || c == 0x1b ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return out.toString();
    }
}
