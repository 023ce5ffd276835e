package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.server.app.MirrorApplication;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.testkit.FakeOrigin;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Clients that are slow, silent or malicious: cut off in bounded time, answered with 4xx, never 5xx. */
final class HostileClientsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;

    @RegisterExtension
    static final MirrorExtension fixture = MirrorExtension.withDefaults();

    private static MirrorApplication strict;

    @BeforeAll
    static void start() throws Exception {
        strict = MirrorApplication.start(
                new ConfigLoader(Map.of()).loadText("""
                server: {host: 127.0.0.1, port: 0, requestReadTimeout: 1s, idleTimeout: 2s}
                cache: {directory: '%s'}
                """.formatted(tmp.resolve("strict-cache"))), Clock.systemUTC());
    }

    @AfterAll
    static void stop() {
        strict.close();
    }

    private static SSLSocket connect(MirrorApplication mirror) throws Exception {
        SSLSocket socket = RawTls.connect(mirror, 15_000);
        socket.startHandshake();
        return socket;
    }

    @Test
    void aClientThatTricklesItsRequestIsCutOff() throws Exception {
        try (SSLSocket socket = connect(strict)) {
            OutputStream out = socket.getOutputStream();
            out.write("GET /providers/ HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            // Never sends the blank line: the server closes within requestReadTimeout (1 s here).
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void aClientThatTricklesItsRequestFasterThanTheIdleTimeoutIsCutOffByTheRequestReadTimeout() throws Exception {
        java.util.concurrent.ScheduledExecutorService pacer =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        try (SSLSocket socket = connect(strict)) {
            OutputStream out = socket.getOutputStream();
            byte[] request = "GET /providers/ HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            java.util.concurrent.atomic.AtomicInteger sent = new java.util.concurrent.atomic.AtomicInteger();
            AtomicBoolean refused = new AtomicBoolean();
            // One byte every 400 ms: never idle for idleTimeout (2 s), but the request takes 14 s to arrive.
            pacer.scheduleAtFixedRate(
                    () -> {
                        if (refused.get() || sent.get() >= request.length) {
                            return;
                        }
                        try {
                            out.write(request[sent.get()]);
                            out.flush();
                            sent.incrementAndGet();
                        } catch (IOException closedByServer) {
                            refused.set(true);
                        }
                    },
                    0,
                    400,
                    java.util.concurrent.TimeUnit.MILLISECONDS);
            socket.setSoTimeout(20_000);
            // Cut off after requestReadTimeout (1 s): the connection ends instead of an answer arriving.
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
            assertThat(sent.get()).as("bytes sent before the cut").isLessThan(request.length);
        } finally {
            pacer.shutdownNow();
        }
    }

    /**
     * A mirror request with a body larger than the aggregator takes gets its JSON 413 while the client is still
     * sending, and the connection then ends cleanly: the mirror reads and drops the rest of the body before it
     * closes. Closing at once (as it did) resets the connection under the client's next write, and a client that
     * had not read the 413 yet lost it. The 413 is read first here, so the body surely follows it.
     */
    @Test
    void aBodyOverTheBoundIsRefusedWith413AndReadSoTheClientStillSendingItIsNotReset() throws Exception {
        byte[] body = new byte[32 * 1024];
        try (SSLSocket socket = connect(fixture.mirror().mirror)) {
            OutputStream out = socket.getOutputStream();
            out.write(("GET /providers/example.test/a/b/index.json HTTP/1.1\r\nHost: localhost\r\nContent-Length: "
                            + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            readTheJson413(in);

            RawTls.writeInPieces(out, body);
            assertThat(in.read())
                    .as("the connection ends after the body, cleanly")
                    .isEqualTo(-1);
        }
    }

    /** Reads the JSON 413 a mirror request with a body over the bound gets, which ends the connection. */
    private static void readTheJson413(InputStream in) throws IOException {
        String head = RawTls.head(in);
        assertThat(head)
                .startsWith("HTTP/1.1 413 Request Entity Too Large\r\n")
                .containsIgnoringCase("connection: close\r\n");
        assertThat(JSON.readTree(in.readNBytes(RawTls.contentLength(head)))
                        .path("errors")
                        .get(0)
                        .asText())
                .contains("mirror requests have no body");
    }

    /**
     * A request over the bound that expects {@code 100 Continue} is refused as any other (the JSON 413, the
     * connection's end), and what it sends after as its body is never read as a request: Netty's own answer was an
     * empty 413 on a connection kept open, whose next bytes were decoded as the next request.
     */
    @Test
    void aBodyOverTheBoundThatExpects100ContinueIsRefusedAndWhatFollowsIsNeverARequest() throws Exception {
        try (SSLSocket socket = connect(fixture.mirror().mirror)) {
            OutputStream out = socket.getOutputStream();
            out.write(("GET /providers/example.test/a/b/index.json HTTP/1.1\r\nHost: localhost\r\n"
                            + "Content-Length: 100000\r\nExpect: 100-continue\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            readTheJson413(in);

            out.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(in.read())
                    .as("no answer to what came as the body: the connection ends")
                    .isEqualTo(-1);
        }
    }

    /**
     * A request that expects something other than {@code 100 Continue} is refused with a 417 and a JSON error, as
     * all bad input is (Netty's own 417 had no body), in its turn: after the answer to the request before it, which
     * waits for the origin. Then the connection ends, and what came with it is never acted on: its body, here itself
     * a request, and a request pipelined behind it, all sent in one write (Netty's 417 went out at once, ahead of the
     * answer still due, and had the codec read that body as the next request, which the mirror routed to its
     * origin).
     */
    @Test
    void anExpectationOtherThanContinueIsRefusedWithAJson417InItsTurnAndNothingAfterItIsActedOn() throws Exception {
        String smuggled = "GET " + fixture.mirror().providerPath("acme", "smuggled") + "index.json HTTP/1.1\r\n"
                + "Host: localhost\r\n\r\n";
        String pipelined = "GET " + fixture.mirror().providerPath("acme", "pipelinedafter") + "index.json HTTP/1.1\r\n"
                + "Host: localhost\r\n\r\n";
        try (SSLSocket socket = connect(fixture.mirror().mirror)) {
            OutputStream out = socket.getOutputStream();
            String before = "GET " + fixture.mirror().providerPath("acme", "before") + "index.json HTTP/1.1\r\n"
                    + "Host: localhost\r\n\r\n";
            out.write((before + "GET /providers/example.test/a/b/index.json HTTP/1.1\r\nHost: localhost\r\n"
                            + "Content-Length: " + smuggled.length() + "\r\nExpect: 200-ok\r\n\r\n" + smuggled
                            + pipelined)
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String first = RawTls.head(in);
            assertThat(first).as("the answer to the request before it, first").startsWith("HTTP/1.1 404 ");
            in.readNBytes(RawTls.contentLength(first));
            String head = RawTls.head(in);
            assertThat(head)
                    .startsWith("HTTP/1.1 417 Expectation Failed\r\n")
                    .containsIgnoringCase("content-type: application/json\r\n")
                    .containsIgnoringCase("connection: close\r\n");
            assertThat(JSON.readTree(in.readNBytes(RawTls.contentLength(head)))
                            .path("errors")
                            .get(0)
                            .asText())
                    .contains("100-continue");
            assertThat(in.read())
                    .as("no answer to what came after the refusal: the connection ends")
                    .isEqualTo(-1);
        }
        // A request of its own afterwards reaches the origin; the two that came with the refused one never did.
        assertThat(fixture.mirror()
                        .get(fixture.mirror().providerPath("acme", "marker") + "index.json")
                        .statusCode())
                .isEqualTo(404);
        assertThat(fixture.origin().requestsMatching(".*/marker/.*")).isPositive();
        assertThat(fixture.origin().requestsMatching(".*/before/.*")).isPositive();
        assertThat(fixture.origin().requestsMatching(".*/(smuggled|pipelinedafter)/.*"))
                .isZero();
    }

    /**
     * {@code Expect: 100-continue, 100-continue} (the same expectation twice, as a list) is met as
     * {@code 100-continue}: the body is read as the request's body, and a request in it is never acted on. Netty's
     * aggregator compares the header's whole value, so it answered this with its own 417, written around the
     * mirror's handlers, and reset its decoder: the body was decoded as the next request and routed to its origin.
     */
    @Test
    void aListOfOneHundredContinuesIsMetAsOneAndItsBodyIsNeverARequest() throws Exception {
        String smuggled = "GET " + fixture.mirror().providerPath("acme", "listsmuggled") + "index.json HTTP/1.1\r\n"
                + "Host: localhost\r\n\r\n";
        try (SSLSocket socket = connect(fixture.mirror().mirror)) {
            OutputStream out = socket.getOutputStream();
            out.write(("GET /providers/example.test/a/b/index.json HTTP/1.1\r\nHost: localhost\r\n"
                            + "Content-Length: " + smuggled.length() + "\r\nExpect: 100-continue, 100-continue\r\n\r\n"
                            + smuggled)
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            assertThat(RawTls.head(in)).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
            String head = RawTls.head(in);
            assertThat(head).as("the request's own answer").startsWith("HTTP/1.1 404 ");
            in.readNBytes(RawTls.contentLength(head));

            out.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(RawTls.head(in))
                    .as("the next answer is the next request's: the body was not one")
                    .startsWith("HTTP/1.1 200 ");
        }
        assertThat(fixture.origin().requestsMatching(".*/listsmuggled/.*")).isZero();
    }

    /**
     * A small request that expects {@code 100 Continue} gets it, then its answer, then the answer to a {@code HEAD}
     * pipelined behind its body, each in its place: a {@code 100} encoded by Netty's codec made the codec take the
     * first answer for the {@code HEAD}'s and drop its body, which put every later answer out of step.
     */
    @Test
    void aContinueThenAPipelinedHeadKeepsTheAnswersInStep() throws Exception {
        String path = "/providers/example.test/a/b/index.json";
        try (SSLSocket socket = connect(fixture.mirror().mirror)) {
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n"
                            + "Expect: 100-continue\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            assertThat(RawTls.head(in)).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");

            out.write(("{}HEAD " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String first = RawTls.head(in);
            assertThat(first).startsWith("HTTP/1.1 ");
            byte[] body = in.readNBytes(RawTls.contentLength(first));
            assertThat(JSON.readTree(body).path("errors").isArray())
                    .as("the GET's answer has its body")
                    .isTrue();
            String second = RawTls.head(in);
            assertThat(second).as("then the HEAD's answer, in step").startsWith("HTTP/1.1 ");
        }
    }

    /**
     * A client that announces a large body and waits for the answer to end before sending it gets the 413 and then
     * the connection's end after the linger (5 s), not after {@code server.requestReadTimeout} (30 s here): its
     * read times out after 15 s.
     */
    @Test
    void aClientThatAnnouncesABodyOverTheBoundAndWaitsSeesTheEndAfterTheLinger() throws Exception {
        try (SSLSocket socket = connect(fixture.mirror().mirror)) {
            OutputStream out = socket.getOutputStream();
            out.write(("GET /providers/example.test/a/b/index.json HTTP/1.1\r\nHost: localhost\r\n"
                            + "Content-Length: 1000000\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(answer)
                    .startsWith("HTTP/1.1 413 Request Entity Too Large\r\n")
                    .contains("no body");
        }
    }

    /** Reads one response to {@code /healthz} (its body has a Content-Length) and answers its status line. */
    private static String readHealthResponse(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                return "closed after " + head;
            }
            head.append((char) b);
        }
        String headers = head.toString().toLowerCase(java.util.Locale.ROOT);
        int at = headers.indexOf("content-length:");
        int length = Integer.parseInt(headers.substring(at + "content-length:".length(), headers.indexOf('\r', at))
                .strip());
        assertThat(in.readNBytes(length)).hasSize(length);
        return head.substring(0, head.indexOf("\r\n"));
    }

    @Test
    void theRequestReadTimeoutStartsAgainAfterEveryAnswer() throws Exception {
        java.util.concurrent.ScheduledExecutorService pacer =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        try (SSLSocket socket = connect(strict)) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            byte[] request = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            // Four requests 600 ms apart on one connection: 1.8 s in all, longer than requestReadTimeout (1 s),
            // but each arrives well within it of the previous answer.
            for (int i = 0; i < 4; i++) {
                pacer.schedule(
                                () -> {
                                    out.write(request);
                                    out.flush();
                                    return null;
                                },
                                i == 0 ? 0 : 600,
                                java.util.concurrent.TimeUnit.MILLISECONDS)
                        .get();
                assertThat(readHealthResponse(in)).as("answer " + (i + 1)).isEqualTo("HTTP/1.1 200 OK");
            }
            // And after the last answer, a request that never completes is cut off again.
            out.write("GET /healthz HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(in.read()).isEqualTo(-1);
        } finally {
            pacer.shutdownNow();
        }
    }

    @Test
    void aClientThatNeverReadsIsCutOffByTheIdleTimeout() throws Exception {
        AtomicBoolean cutOff = new AtomicBoolean();
        AtomicLong sent = new AtomicLong();
        try (SSLSocket socket = connect(strict)) {
            socket.setReceiveBufferSize(16 * 1024);
            OutputStream out = socket.getOutputStream();
            byte[] request = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            Thread writer = new Thread(() -> {
                try {
                    // Pipelines requests and reads no answer, until the server gives up on this client.
                    while (!Thread.currentThread().isInterrupted()) {
                        out.write(request);
                        sent.incrementAndGet();
                    }
                } catch (IOException closedByServer) {
                    cutOff.set(true);
                }
            });
            writer.setDaemon(true);
            writer.start();
            try {
                // The idle timeout is 2 s here; without it the writer blocks forever once the buffers are full.
                await().atMost(Duration.ofSeconds(20)).untilTrue(cutOff);
            } finally {
                writer.interrupt();
            }
            // The server stopped reading while its answers were not taken: it read only a few of the requests.
            long answered = countAnswers(socket);
            assertThat(answered).isLessThan(sent.get());
        }
    }

    /** Reads what the server sent before it closed the connection, and counts the HTTP responses in it. */
    private static long countAnswers(SSLSocket socket) throws IOException {
        socket.setSoTimeout(5_000);
        InputStream in = socket.getInputStream();
        java.io.ByteArrayOutputStream received = new java.io.ByteArrayOutputStream();
        try {
            in.transferTo(received);
        } catch (java.net.SocketException reset) {
            // A reset is as good as a close.
        }
        String text = received.toString(StandardCharsets.ISO_8859_1);
        return text.split("HTTP/1.1 200", -1).length - 1L;
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        FakeOrigin.Release release =
                fixture.origin().publish("acme", "pipelined", "1.0.0", FakeOrigin.Tamper.NONE, 100_000, "linux_amd64");
        fixture.origin().serveSlowly(release, "linux_amd64", 5, 500);
        String archive = fixture.mirror().providerPath("acme", "pipelined")
                + "terraform-provider-pipelined_1.0.0_linux_amd64.zip";
        try (SSLSocket socket = connect(fixture.mirror().mirror)) {
            // Both requests in one write: the slow cold archive first, then the home page.
            socket.getOutputStream()
                    .write(("GET " + archive + " HTTP/1.1\r\nHost: x\r\n\r\n"
                                    + "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            java.io.ByteArrayOutputStream received = new java.io.ByteArrayOutputStream();
            socket.getInputStream().transferTo(received);
            String text = received.toString(StandardCharsets.ISO_8859_1).toLowerCase(java.util.Locale.ROOT);
            int zip = text.indexOf("content-type: application/zip");
            int html = text.indexOf("content-type: text/html");
            assertThat(zip).as("the archive was answered").isNotNegative();
            assertThat(html).as("the home page was answered").isNotNegative();
            assertThat(zip).as("the first request's answer comes first").isLessThan(html);
        }
    }

    @Test
    void generatedPathsNeverCauseA5xxNorAFileOutsideTheCache() throws Exception {
        Set<Path> before = filesUnder(tmp);
        Random random = new Random(7);
        String[] pieces = {
            "..",
            "%2e%2e",
            "%2f",
            "/",
            "example.test",
            "acme",
            "fake",
            "index.json",
            "1.0.0.json",
            "terraform-provider-fake_1.0.0_linux_amd64.zip",
            "%00",
            "~",
            "..;",
            "\\",
            "a",
            "-",
            "_",
            ":",
            "::1",
            "%",
            "%ff",
            "1.0",
            "v1",
            "..%2f",
            "./",
            "localhost",
            "169.254.169.254"
        };
        int requests = 400;
        for (int i = 0; i < requests; i++) {
            StringBuilder path = new StringBuilder(random.nextBoolean() ? "/providers/" : "/");
            int parts = 1 + random.nextInt(6);
            for (int j = 0; j < parts; j++) {
                path.append(pieces[random.nextInt(pieces.length)]);
                if (random.nextInt(3) > 0) {
                    path.append('/');
                }
            }
            URI uri;
            try {
                uri = URI.create("https://localhost:" + fixture.mirror().mirror.port() + path);
            } catch (IllegalArgumentException notAUri) {
                continue;
            }
            HttpResponse<byte[]> response = fixture.mirror()
                    .send(HttpRequest.newBuilder(uri)
                            .timeout(Duration.ofSeconds(20))
                            .build());
            assertThat(response.statusCode()).as(path.toString()).isLessThan(500);
            if (response.statusCode() >= 400) {
                assertThat(JSON.readTree(response.body()).get("errors").isArray())
                        .as(path.toString())
                        .isTrue();
            }
        }
        Set<Path> after = filesUnder(tmp);
        after.removeAll(before);
        assertThat(after).allMatch(p -> p.startsWith(tmp.resolve("cache")), "only files under the cache were created");
    }

    private static Set<Path> filesUnder(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return new HashSet<>(files.filter(Files::isRegularFile).toList());
        }
    }
}
