package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
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

    private static HttpRequest request(HttpVersion version, String... expect) {
        HttpRequest request = new DefaultHttpRequest(version, HttpMethod.GET, "/healthz");
        for (String value : expect) {
            request.headers().add(HttpHeaderNames.EXPECT, value);
        }
        return request;
    }
}
