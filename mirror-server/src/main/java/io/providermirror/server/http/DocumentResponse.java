package io.providermirror.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.providermirror.model.ProviderAddress;
import io.providermirror.server.status.Operations;
import java.util.Optional;

/**
 * Responses whose whole body is in memory: the JSON documents, the status page, the operator endpoints and the
 * CA certificate. The body is wrapped, not copied, and left out for HEAD with its length still announced.
 */
final class DocumentResponse {

    private static final ObjectMapper JSON = new ObjectMapper();

    private DocumentResponse() {}

    /** A response with {@code body}, marked {@code no-cache}: documents change when an origin publishes. */
    static FullHttpResponse of(HttpResponseStatus status, String contentType, byte[] body, boolean head) {
        ByteBuf content = head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, contentType)
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        HttpUtil.setContentLength(response, body.length);
        return response;
    }

    /** {@code /readyz}: 200 or 503, with each check's state, for load balancers and operators alike. */
    static FullHttpResponse readiness(Operations.Readiness readiness, boolean head) {
        ObjectNode body = JSON.createObjectNode().put("status", readiness.ready() ? "ready" : "not ready");
        readiness.checks().forEach(body.putObject("checks")::put);
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        return of(
                readiness.ready() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
                "application/json",
                bytes,
                head);
    }

    /** The mirror's own CA certificate, or 404 when it serves a certificate it was given. */
    static FullHttpResponse caCertificate(Optional<byte[]> pem, boolean head) {
        if (pem.isPresent()) {
            return of(HttpResponseStatus.OK, "application/x-pem-file", pem.get(), head);
        }
        return JsonErrors.response(
                HttpResponseStatus.NOT_FOUND,
                "this mirror has no CA of its own to offer: it uses "
                        + "the certificate configured in server.tls (or plain HTTP behind a load balancer)",
                head);
    }

    /** One provider's status page, or 404 when nothing of it is cached. */
    static FullHttpResponse providerStatus(Optional<byte[]> page, ProviderAddress address, boolean head) {
        if (page.isPresent()) {
            return of(HttpResponseStatus.OK, "text/html; charset=utf-8", page.get(), head);
        }
        return JsonErrors.response(
                HttpResponseStatus.NOT_FOUND,
                "nothing of " + address + " is cached in this mirror (origin " + address.hostname() + ")",
                head);
    }
}
