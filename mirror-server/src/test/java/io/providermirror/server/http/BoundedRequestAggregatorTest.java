package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;

/** Which expectations the mirror refuses with a 417: any but {@code 100-continue}, in any value of any header. */
final class BoundedRequestAggregatorTest {

    @Test
    void onlyOneHundredContinueIsAnExpectationTheMirrorMeets() {
        assertThat(BoundedRequestAggregator.expectsWhatCannotBeMet(request(HttpVersion.HTTP_1_1)))
                .isFalse();
        assertThat(BoundedRequestAggregator.expectsWhatCannotBeMet(request(HttpVersion.HTTP_1_1, "100-Continue")))
                .isFalse();
        assertThat(BoundedRequestAggregator.expectsWhatCannotBeMet(
                        request(HttpVersion.HTTP_1_1, "100-continue,100-continue")))
                .isFalse();
        assertThat(BoundedRequestAggregator.expectsWhatCannotBeMet(request(HttpVersion.HTTP_1_1, "200-ok")))
                .isTrue();
        assertThat(BoundedRequestAggregator.expectsWhatCannotBeMet(
                        request(HttpVersion.HTTP_1_1, "100-continue, 200-ok")))
                .as("a second value in the same header")
                .isTrue();
        assertThat(BoundedRequestAggregator.expectsWhatCannotBeMet(
                        request(HttpVersion.HTTP_1_1, "100-continue", "200-ok")))
                .as("a second header")
                .isTrue();
        assertThat(BoundedRequestAggregator.expectsWhatCannotBeMet(request(HttpVersion.HTTP_1_0, "200-ok")))
                .as("HTTP/1.0 has no expectations; the header is ignored")
                .isFalse();
    }

    /**
     * {@code Expect: 100-continue, 100-continue} is met as {@code 100-continue}: one {@code 100 Continue}, and the body
     * is the request's body. Netty's check compares the header's whole value: it wrote its own 417 around the
     * mirror's handlers and reset its decoder, which read the body as the next request and handed it on.
     */
    @Test
    void aListOfOneHundredContinuesGetsOneAndTheBodyIsNeverARequest() {
        String smuggled = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n";
        try (ServerPipeline pipeline = new ServerPipeline()) {
            pipeline.send("POST /expecting HTTP/1.1\r\nHost: x\r\nExpect: 100-continue, 100-continue\r\n"
                    + "Content-Length: " + smuggled.length() + "\r\n\r\n" + smuggled);
            pipeline.answer(HttpResponseStatus.NOT_FOUND, true);

            assertThat(pipeline.written()).startsWith("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\n");
            assertThat(pipeline.seen).containsExactly("/expecting");
            assertThat(pipeline.channel.isOpen()).isTrue();
        }
    }

    /**
     * A request pipelined behind the connection's last one is dropped unread, so it is not asked for its body: a
     * {@code 100 Continue} went out for it, ahead of the last request's answer.
     */
    @Test
    void aRequestBehindTheLastOneGetsNoContinue() {
        try (ServerPipeline pipeline = new ServerPipeline()) {
            pipeline.send("GET /closing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    + "POST /behind HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
            assertThat(pipeline.written()).isEmpty();
            pipeline.answer(HttpResponseStatus.NOT_FOUND, true);

            assertThat(pipeline.written())
                    .startsWith("HTTP/1.1 404 Not Found\r\n")
                    .doesNotContain("100 Continue");
            assertThat(pipeline.seen).containsExactly("/closing");
        }
    }

    private static HttpRequest request(HttpVersion version, String... expect) {
        HttpRequest request = new DefaultHttpRequest(version, HttpMethod.GET, "/healthz");
        for (String value : expect) {
            request.headers().add(HttpHeaderNames.EXPECT, value);
        }
        return request;
    }
}
