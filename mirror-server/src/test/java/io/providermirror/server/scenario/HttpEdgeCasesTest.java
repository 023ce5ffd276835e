package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.upstream.TrustedCertificates;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.SocketException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Conditional and range requests as RFC 9110 has them (a stale {@code If-Range} gets the whole archive, a
 * matching {@code If-None-Match} gets 304), and request framing the mirror does not support refused on the
 * raw connection, which is then closed.
 */
final class HttpEdgeCasesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final MirrorExtension fixture = MirrorExtension.withDefaults();

    private static FakeOrigin.Release release;
    private static String archive;

    @BeforeAll
    static void start() throws Exception {
        release = fixture.origin().publish("acme", "ranged", "1.0.0", FakeOrigin.Tamper.NONE, 20_000, "linux_amd64");
        archive = fixture.mirror().providerPath("acme", "ranged") + "terraform-provider-ranged_1.0.0_linux_amd64.zip";
        assertThat(fixture.mirror().get(archive).statusCode()).isEqualTo(200);
    }

    private static HttpResponse<byte[]> get(String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(fixture.mirror().url(archive));
        return fixture.mirror().send((headers.length == 0 ? request : request.headers(headers)).build());
    }

    private static byte[] genuine() {
        return release.archives().get("linux_amd64");
    }

    @Test
    void aRangeWithAStaleIfRangeValidatorGetsTheWholeArchive() throws Exception {
        HttpResponse<byte[]> plain = get("Range", "bytes=0-9");
        assertThat(plain.statusCode()).isEqualTo(206);
        String etag = plain.headers().firstValue("etag").orElseThrow();
        String lastModified = plain.headers().firstValue("last-modified").orElseThrow();
        assertThat(etag).isEqualTo("\"" + release.sha256("linux_amd64") + "\"");

        assertThat(get("Range", "bytes=0-9", "If-Range", etag).statusCode())
                .as("the current entity tag")
                .isEqualTo(206);
        assertThat(get("Range", "bytes=0-9", "If-Range", lastModified).statusCode())
                .as("the current date")
                .isEqualTo(206);
        for (String stale : new String[] {
            "\"0123abcd\"",
            "W/" + etag,
            DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.of(2020, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC)),
            "not a validator"
        }) {
            HttpResponse<byte[]> whole = get("Range", "bytes=0-9", "If-Range", stale);
            assertThat(whole.statusCode()).as(stale).isEqualTo(200);
            assertThat(whole.headers().firstValue("content-range")).as(stale).isEmpty();
            assertThat(whole.body()).as(stale).isEqualTo(genuine());
        }
    }

    @Test
    void ifNoneMatchWithTheArchivesEntityTagGets304() throws Exception {
        String etag = get().headers().firstValue("etag").orElseThrow();
        for (String match : new String[] {etag, "\"other\", " + etag, "W/" + etag, "*"}) {
            HttpResponse<byte[]> notModified = get("If-None-Match", match);
            assertThat(notModified.statusCode()).as(match).isEqualTo(304);
            assertThat(notModified.body()).as(match).isEmpty();
            assertThat(notModified.headers().firstValue("etag")).as(match).contains(etag);
        }
        HttpResponse<byte[]> changed = get("If-None-Match", "\"0123abcd\"");
        assertThat(changed.statusCode()).isEqualTo(200);
        assertThat(changed.body()).isEqualTo(genuine());
        assertThat(get("If-None-Match", etag, "Range", "bytes=0-9").statusCode())
                .as("before the range")
                .isEqualTo(304);
    }

    @Test
    void anUnknownTransferEncodingGets501AndNothingAfterItIsAnswered() throws Exception {
        for (String request : new String[] {
            "GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
            "GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
            "GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\nContent-Length: 0\r\n\r\n"
        }) {
            String answer = exchange(request + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(answer).as(request).startsWith("HTTP/1.1 501 ");
            assertThat(answer.toLowerCase(Locale.ROOT)).as(request).contains("connection: close");
            assertThat(JSON.readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4))
                            .get("errors")
                            .get(0)
                            .asText())
                    .as(request)
                    .contains("Transfer-Encoding")
                    .contains("not supported");
            assertThat(answer.split("HTTP/1\\.1 ", -1))
                    .as("the request smuggled after it is not answered")
                    .hasSize(2);
        }
        assertThat(exchange(
                        "GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                                + "0\r\n\r\n"))
                .as("chunked (and empty) is fine")
                .startsWith("HTTP/1.1 200 ");
    }

    /** Writes {@code request} on a new connection and reads everything until the server closes it. */
    private static String exchange(String request) throws Exception {
        try (SSLSocket socket = (SSLSocket) TrustedCertificates.sslContext(
                        fixture.mirror().mirror.generatedCaFile().orElseThrow())
                .getSocketFactory()
                .createSocket("127.0.0.1", fixture.mirror().mirror.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            try {
                socket.getInputStream().transferTo(received);
            } catch (SocketException reset) {
                // A reset after the answer is as good as a close.
            }
            return received.toString(StandardCharsets.ISO_8859_1);
        }
    }
}
