package io.providermirror.server.http;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.providermirror.server.core.PolicyDeniedException;
import io.providermirror.server.tlog.Decision;
import io.providermirror.server.tlog.MirrorLog;
import io.providermirror.server.tlog.TileName;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The transparency log as C2SP {@code tlog-tiles} serves it below {@code /log/}: {@code checkpoint} (mutable, not
 * cached), {@code tile/<L>/<N>[.p/<W>]} and {@code tile/entries/<N>[.p/<W>]} (immutable). Only what the current
 * checkpoint covers is served. Also where a request the policy refused is recorded in the log.
 */
final class LogResponses {

    /** Where the log is served. */
    static final String PREFIX = "/log/";

    private static final String SHAPE = "expected /log/checkpoint, /log/tile/<L>/<N>[.p/<W>] or "
            + "/log/tile/entries/<N>[.p/<W>] (c2sp.org/tlog-tiles)";

    private LogResponses() {}

    /** The route of {@code rest}, the path below {@link #PREFIX}. */
    static Route route(String rest) {
        if (rest.equals("checkpoint")) {
            return new Route.Log(Optional.empty());
        }
        return TileName.parse(rest)
                .<Route>map(tile -> new Route.Log(Optional.of(tile)))
                .orElseGet(() -> new Route.Invalid(404, "nothing is served at " + PREFIX + rest + ": " + SHAPE));
    }

    /** Reads what {@code route} names (blocking: run off the event loop); empty when the log holds no such thing. */
    static Optional<byte[]> read(MirrorLog log, Route.Log route) {
        if (log == null) {
            return Optional.empty();
        }
        if (route.tile().isEmpty()) {
            return Optional.of(log.log().current().note());
        }
        try {
            return log.log().served(route.tile().get());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + route.tile().get().path() + " of the transparency log", e);
        }
    }

    /** The answer with {@code body}, or a 404 when there is none. */
    static FullHttpResponse of(Route.Log route, Optional<byte[]> body, boolean head) {
        if (body.isEmpty()) {
            return JsonErrors.response(
                    HttpResponseStatus.NOT_FOUND,
                    route.tile().isEmpty()
                            ? "this mirror keeps no transparency log"
                            : "the transparency log holds no "
                                    + route.tile().get().path() + " (yet): a client reads "
                                    + "only the tiles its checkpoint's tree size calls for",
                    head);
        }
        boolean checkpoint = route.tile().isEmpty();
        FullHttpResponse response = DocumentResponse.of(
                HttpResponseStatus.OK,
                checkpoint ? "text/plain; charset=utf-8" : "application/octet-stream",
                body.get(),
                head);
        // The checkpoint changes with every batch; a tile's bytes never change once served (a partial tile has
        // its width in its name).
        response.headers().set(HttpHeaderNames.CACHE_CONTROL, checkpoint ? "no-cache" : "max-age=31536000, immutable");
        return response;
    }

    /** Records {@code failure} in the log when it is the policy's refusal of the request for {@code path}. */
    static void recordRefusal(MirrorLog log, Throwable failure, String path) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (log != null && cause instanceof PolicyDeniedException denied) {
            log.decisions().record(Decision.refused(path, denied.getMessage()));
        }
    }
}
