package io.providermirror.server.http;

import static io.providermirror.server.http.EmbeddedMirror.exchange;
import static io.providermirror.server.http.EmbeddedMirror.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.testkit.FakeOrigin;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP handler's rules, one request at a time on an embedded channel: what a malformed or refused request
 * gets, HEAD, ranges and conditional requests on a cached archive, and whether the connection stays open.
 */
final class MirrorHttpHandlerTest {

    private static final String BASE = "/providers/example.test/acme/foo/";
    private static final String INDEX = BASE + "index.json";
    private static final String ARCHIVE = BASE + "terraform-provider-foo_1.0.0_linux_amd64.zip";

    @TempDir
    static Path directory;

    private static EmbeddedMirror mirror;
    private static byte[] archive;

    @BeforeAll
    static void warmOneProvider() throws Exception {
        mirror = EmbeddedMirror.start(
                directory, Map.of("policy", Map.of("deny", List.of(Map.of("provider", "example.test/acme/banned")))));
        FakeOrigin.Release release = mirror.origin.publish("acme", "foo", "1.0.0", "linux_amd64");
        archive = release.archives().get("linux_amd64");
        mirror.warm(
                ProviderAddress.parse("example.test/acme/foo"),
                ProviderVersion.parse("1.0.0").orElseThrow(),
                Platform.parse("linux_amd64"));
    }

    @AfterAll
    static void stop() {
        mirror.close();
    }

    @AfterEach
    void closeConnections() {
        mirror.closeConnections();
    }

    @Test
    void aMalformedPathGetsA400WithAJsonErrorsBody() throws Exception {
        EmbeddedChannel channel = mirror.connection();

        EmbeddedMirror.Answer answer = exchange(channel, get(BASE + "%2e%2e/index.json"));

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.header(HttpHeaderNames.CONTENT_TYPE)).isEqualTo("application/json");
        assertThat(answer.errors().isArray()).isTrue();
        assertThat(answer.errors().get(0).asText()).contains("percent-encoded");
        assertThat(channel.isOpen())
                .as("a bad path is the client's mistake, not the connection's")
                .isTrue();
    }

    @Test
    void aMethodOtherThanGetOrHeadGets405NamingTheAllowedOnes() throws Exception {
        EmbeddedChannel channel = mirror.connection();

        EmbeddedMirror.Answer answer = exchange(channel, EmbeddedMirror.request(HttpMethod.DELETE, INDEX));

        assertThat(answer.status()).isEqualTo(405);
        assertThat(answer.header(HttpHeaderNames.ALLOW)).isEqualTo("GET, HEAD");
    }

    @Test
    void headOfAWarmVersionListAnswersWithItsLengthButWithoutABody() throws Exception {
        EmbeddedChannel channel = mirror.connection();
        EmbeddedMirror.Answer whole = exchange(channel, get(INDEX));

        EmbeddedMirror.Answer head = exchange(channel, EmbeddedMirror.request(HttpMethod.HEAD, INDEX));

        assertThat(whole.status()).isEqualTo(200);
        assertThat(whole.text()).contains("\"1.0.0\"");
        assertThat(head.status()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(head.header(HttpHeaderNames.CONTENT_LENGTH)).isEqualTo(Integer.toString(whole.body().length));
    }

    @Test
    void aCachedArchiveIsSentWhole() throws Exception {
        EmbeddedChannel channel = mirror.connection();

        EmbeddedMirror.Answer answer = exchange(channel, get(ARCHIVE));

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.header("X-Cache")).isEqualTo("HIT");
        assertThat(answer.body()).isEqualTo(archive);
    }

    @Test
    void headOfACachedArchiveAnnouncesItsLengthAndEntityTagWithoutSendingIt() throws Exception {
        EmbeddedChannel channel = mirror.connection();

        EmbeddedMirror.Answer answer = exchange(channel, EmbeddedMirror.request(HttpMethod.HEAD, ARCHIVE));

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body()).isEmpty();
        assertThat(answer.header(HttpHeaderNames.CONTENT_LENGTH)).isEqualTo(Integer.toString(archive.length));
        assertThat(answer.header(HttpHeaderNames.ETAG)).isEqualTo("\"" + FakeOrigin.hex(archive) + "\"");
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void aRangeRequestGets206WithExactlyTheBytesAskedFor() throws Exception {
        EmbeddedChannel channel = mirror.connection();
        FullHttpRequest request = get(ARCHIVE);
        request.headers().set(HttpHeaderNames.RANGE, "bytes=10-19");

        EmbeddedMirror.Answer answer = exchange(channel, request);

        assertThat(answer.status()).isEqualTo(206);
        assertThat(answer.header(HttpHeaderNames.CONTENT_RANGE)).isEqualTo("bytes 10-19/" + archive.length);
        assertThat(answer.body()).isEqualTo(Arrays.copyOfRange(archive, 10, 20));
    }

    @Test
    void aRangeOutsideTheArchiveGets416NamingItsSize() throws Exception {
        EmbeddedChannel channel = mirror.connection();
        FullHttpRequest request = get(ARCHIVE);
        request.headers().set(HttpHeaderNames.RANGE, "bytes=" + archive.length + "-");

        EmbeddedMirror.Answer answer = exchange(channel, request);

        assertThat(answer.status()).isEqualTo(416);
        assertThat(answer.header(HttpHeaderNames.CONTENT_RANGE)).isEqualTo("bytes */" + archive.length);
    }

    @Test
    void ifNoneMatchWithTheArchivesEntityTagGets304AndTheConnectionStaysOpen() throws Exception {
        EmbeddedChannel channel = mirror.connection();
        String etag = exchange(channel, get(ARCHIVE)).header(HttpHeaderNames.ETAG);
        FullHttpRequest request = get(ARCHIVE);
        request.headers().set(HttpHeaderNames.IF_NONE_MATCH, etag);

        EmbeddedMirror.Answer answer = exchange(channel, request);

        assertThat(etag).isEqualTo("\"" + FakeOrigin.hex(archive) + "\"");
        assertThat(answer.status()).isEqualTo(304);
        assertThat(answer.body()).isEmpty();
        assertThat(answer.header(HttpHeaderNames.ETAG)).isEqualTo(etag);
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void aKeepAliveRequestLeavesTheConnectionOpenAndConnectionCloseClosesIt() throws Exception {
        EmbeddedChannel channel = mirror.connection();

        assertThat(exchange(channel, get(INDEX)).status()).isEqualTo(200);
        assertThat(channel.isOpen()).isTrue();
        FullHttpRequest last = get(INDEX);
        last.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        assertThat(exchange(channel, last).status()).isEqualTo(200);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void aRequestTheDecoderCouldNotReadGets400AndTheConnectionIsClosed() throws Exception {
        EmbeddedChannel channel = mirror.connection();
        FullHttpRequest request = get(INDEX);
        request.setDecoderResult(io.netty.handler.codec.DecoderResult.failure(new IllegalArgumentException("bad")));

        EmbeddedMirror.Answer answer = exchange(channel, request);

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.errors().get(0).asText()).isEqualTo("malformed HTTP request");
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void aProviderThePolicyRefusesGets404SayingItIsThePolicy() throws Exception {
        EmbeddedChannel channel = mirror.connection();

        EmbeddedMirror.Answer answer = exchange(channel, get("/providers/example.test/acme/banned/index.json"));

        assertThat(answer.status()).isEqualTo(404);
        assertThat(answer.errors().get(0).asText()).startsWith("refused by this mirror's policy: ");
    }

    @Test
    void theManagementListenerServesTheOperatorEndpointsOnly() throws Exception {
        EmbeddedChannel channel = mirror.connection(true);

        EmbeddedMirror.Answer health = exchange(channel, get("/healthz"));
        EmbeddedMirror.Answer document = exchange(channel, get(INDEX));

        assertThat(health.status()).isEqualTo(200);
        assertThat(health.text()).isEqualTo("{\"status\":\"ok\"}");
        assertThat(document.status()).isEqualTo(404);
        assertThat(document.errors().get(0).asText()).contains("management listener");
    }
}
