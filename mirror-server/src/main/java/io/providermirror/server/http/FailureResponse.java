package io.providermirror.server.http;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.providermirror.server.core.Refusal;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where why the mirror could not answer becomes an HTTP status. The engine says what kind of failure
 * it was ({@link Refusal}: an origin's reason, a policy refusal, a package a face cannot offer, a full disk or a busy
 * mirror, a cache that cannot be read or written), so this knows no origin, store or face; anything else is a
 * logged 500.
 */
final class FailureResponse {

    /** Logged under the handler's name, as before this had a class of its own: operators filter on it. */
    private static final Logger LOG = LoggerFactory.getLogger(MirrorHttpHandler.class);

    private FailureResponse() {}

    /** The JSON error answer for {@code failure}, a request for {@code path} (named in the log on a 500). */
    static FullHttpResponse of(Throwable failure, boolean head, String path) {
        Optional<Refusal> known = Refusal.of(failure);
        if (known.isEmpty()) {
            LOG.error("internal error answering {}", path, failure);
            return JsonErrors.response(
                    HttpResponseStatus.INTERNAL_SERVER_ERROR,
                    "internal error in the mirror; its log has the details",
                    head);
        }
        Refusal refusal = known.get();
        FullHttpResponse response = JsonErrors.response(status(refusal.kind()), refusal.reason(), head);
        if (refusal.kind() == Refusal.Kind.BUSY) {
            // Busy, not broken: a client (or the operator's retry loop) may try again shortly.
            response.headers()
                    .set(HttpHeaderNames.RETRY_AFTER, refusal.retryAfter().toSeconds());
        }
        return response;
    }

    private static HttpResponseStatus status(Refusal.Kind kind) {
        return switch (kind) {
            case NOT_FOUND -> HttpResponseStatus.NOT_FOUND;
            case FORBIDDEN -> HttpResponseStatus.FORBIDDEN;
            case CONFLICT -> HttpResponseStatus.CONFLICT;
            case ORIGIN_TIMEOUT -> HttpResponseStatus.GATEWAY_TIMEOUT;
            case ORIGIN_FAILED -> HttpResponseStatus.BAD_GATEWAY;
            case BUSY, UNAVAILABLE -> HttpResponseStatus.SERVICE_UNAVAILABLE;
            case DISK_FULL -> HttpResponseStatus.INSUFFICIENT_STORAGE;
        };
    }
}
