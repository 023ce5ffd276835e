package io.providermirror.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.providermirror.model.Urls;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Error responses as the mirror writes them all: {@code {"errors":["..."]}} as {@code application/json}. URLs in
 * a message lose their query strings here, whatever produced the message: pre-signed download URLs are
 * credentials, and clients must not learn them.
 */
final class JsonErrors {

    private static final ObjectMapper JSON = new ObjectMapper();

    private JsonErrors() {}

    /** An error response; for HEAD the body is left out but its length is still announced. */
    static FullHttpResponse response(HttpResponseStatus status, String message, boolean head) {
        byte[] body;
        try {
            body = JSON.writeValueAsBytes(Map.of("errors", List.of(Urls.redactedIn(message))));
        } catch (JsonProcessingException e) {
            body = "{\"errors\":[\"error\"]}".getBytes(StandardCharsets.US_ASCII);
        }
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, status, head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "application/json")
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
        HttpUtil.setContentLength(response, body.length);
        return response;
    }
}
