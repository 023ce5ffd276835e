package io.providermirror.server.http;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.providermirror.cache.StoreUnavailableException;
import io.providermirror.server.core.CacheWriteException;
import io.providermirror.server.core.CapacityException;
import io.providermirror.server.core.PolicyDeniedException;
import io.providermirror.server.face.providers.ExpiredOriginSignatureException;
import io.providermirror.server.face.providers.NoOriginSignatureException;
import io.providermirror.upstream.OriginException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where why the mirror could not answer becomes an HTTP status: an origin's reason, a policy
 * refusal, a package the providers.v1 face cannot offer (409: no origin signature, or one expired since), a full disk or a busy mirror, a cache that cannot be written, and anything else as a logged 500.
 */
final class FailureResponse {

    /** Logged under the handler's name, as before this had a class of its own: operators filter on it. */
    private static final Logger LOG = LoggerFactory.getLogger(MirrorHttpHandler.class);

    private FailureResponse() {}

    /** The JSON error answer for {@code failure}, a request for {@code path} (named in the log on a 500). */
    static FullHttpResponse of(Throwable failure, boolean head, String path) {
        Throwable cause = unwrap(failure);
        if (cause instanceof OriginException origin) {
            HttpResponseStatus status = switch (origin.reason()) {
                case NOT_FOUND -> HttpResponseStatus.NOT_FOUND;
                case FORBIDDEN -> HttpResponseStatus.FORBIDDEN;
                case TIMEOUT -> HttpResponseStatus.GATEWAY_TIMEOUT;
                case UNAVAILABLE, BAD_RESPONSE, VERIFICATION_FAILED -> HttpResponseStatus.BAD_GATEWAY;
            };
            return JsonErrors.response(status, origin.getMessage(), head);
        }
        if (cause instanceof PolicyDeniedException denied) {
            return JsonErrors.response(
                    HttpResponseStatus.NOT_FOUND, "refused by this mirror's policy: " + denied.getMessage(), head);
        }
        if (cause instanceof NoOriginSignatureException unsigned) {
            return JsonErrors.response(HttpResponseStatus.CONFLICT, unsigned.getMessage(), head);
        }
        if (cause instanceof ExpiredOriginSignatureException expired) {
            return JsonErrors.response(HttpResponseStatus.CONFLICT, expired.getMessage(), head);
        }
        if (cause instanceof CapacityException capacity) {
            boolean disk = capacity.limit() == CapacityException.Limit.DISK;
            FullHttpResponse response = JsonErrors.response(
                    disk ? HttpResponseStatus.INSUFFICIENT_STORAGE : HttpResponseStatus.SERVICE_UNAVAILABLE,
                    capacity.getMessage(),
                    head);
            if (!disk) {
                // Busy, not broken: a client (or the operator's retry loop) may try again shortly.
                response.headers()
                        .set(HttpHeaderNames.RETRY_AFTER, capacity.retryAfter().toSeconds());
            }
            return response;
        }
        Throwable store = storeFailure(cause);
        if (store != null) {
            // The bucket that is the cache of record did not answer: a cold request cannot be served now.
            return JsonErrors.response(HttpResponseStatus.SERVICE_UNAVAILABLE, store.getMessage(), head);
        }
        if (cause instanceof CacheWriteException cacheTrouble) {
            return JsonErrors.response(HttpResponseStatus.SERVICE_UNAVAILABLE, cacheTrouble.getMessage(), head);
        }
        LOG.error("internal error answering {}", path, cause);
        return JsonErrors.response(
                HttpResponseStatus.INTERNAL_SERVER_ERROR,
                "internal error in the mirror; its log has the details",
                head);
    }

    /** The bucket's failure ({@link StoreUnavailableException}) in {@code failure}'s causes, else null. */
    private static Throwable storeFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof StoreUnavailableException) {
                return t;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
