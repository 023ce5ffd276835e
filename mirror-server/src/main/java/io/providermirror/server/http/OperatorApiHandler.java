package io.providermirror.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * Answers the operator API ({@link OperatorRoutes}): every request whose path is below {@code /api/}, which reaches
 * it unaggregated. Each is refused before its body is read unless it carries an operator token (a 401 without one,
 * a 403 with another token; a 404 when no operator token is configured, and always on the management listener).
 * An import's body streams to a file in the upload directory, off the event loop, reading paused while more than
 * {@link #MAX_PENDING_BYTES} wait to be written, and refused with a 413 past {@code operator.maxBundleSize}; then
 * the import runs, and its answer is written when it ends. The one other request that reaches it unaggregated, one
 * {@linkplain BoundedRequestAggregator#isTooLarge too large} for the aggregator, is refused here with a 413 the same
 * way, before its body is read. Whatever is left of a refused request's body is dropped, and
 * {@link ConnectionDiscipline} closes the connection after it.
 */
final class OperatorApiHandler extends ChannelInboundHandlerAdapter {

    /** Bytes read but not yet written to disk at which reading pauses. */
    static final int MAX_PENDING_BYTES = 1 << 20;
    /** An operator request other than an import has no body: at most this much is read of one. */
    static final int MAX_OTHER_BODY_BYTES = 8 * 1024;

    private static final String NO_BODY =
            "this operator request has no body (at most " + MAX_OTHER_BODY_BYTES + " bytes are read)";

    private final OperatorApi api;
    private final Executor executor;
    private final boolean managementOnly;

    /** An operator request's parts are arriving, up to its last content. */
    private boolean active;
    /** The request was answered (refused) before its body ended: the rest of it is dropped. */
    private boolean answered;

    private String path;
    private OperatorRoutes.OperatorRoute route;
    private long received;
    private int pendingBytes;
    private BundleUpload upload;
    /** The writes of the upload, in order; each releases its buffer whatever became of the ones before. */
    private CompletableFuture<Void> writes;

    OperatorApiHandler(OperatorApi api, Executor executor, boolean managementOnly) {
        this.api = api;
        this.executor = executor;
        this.managementOnly = managementOnly;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!active && msg instanceof HttpRequest request && !(msg instanceof FullHttpRequest)) {
            boolean operator = OperatorRoutes.isOperatorPath(request.uri());
            if (operator || BoundedRequestAggregator.isTooLarge(request)) {
                active = true;
                answered = false;
                received = 0;
                if (operator) {
                    ctx.channel().attr(ExchangeLog.ROUTE).set("operator");
                }
                start(ctx, request);
                return;
            }
        }
        if (active && msg instanceof HttpContent content) {
            try {
                content(ctx, content);
            } finally {
                content.release();
            }
            return;
        }
        ctx.fireChannelRead(msg);
    }

    /** The request's head: refused now, or taken (its body follows). */
    private void start(ChannelHandlerContext ctx, HttpRequest request) {
        path = new QueryStringDecoder(request.uri()).rawPath();
        boolean bodyFollows = HttpUtil.isContentLengthSet(request) && HttpUtil.getContentLength(request, 0L) > 0
                || HttpUtil.isTransferEncodingChunked(request);
        if (BoundedRequestAggregator.isTooLarge(request)) {
            refuse(
                    ctx,
                    HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                    request.decoderResult().cause().getMessage(),
                    true);
            return;
        }
        if (!request.decoderResult().isSuccess()) {
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, "malformed HTTP request", true);
            return;
        }
        for (String coding : request.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING)) {
            if (!HttpHeaderValues.CHUNKED.contentEqualsIgnoreCase(coding.strip())) {
                refuse(
                        ctx,
                        HttpResponseStatus.NOT_IMPLEMENTED,
                        "Transfer-Encoding " + ExchangeLog.printable(coding, 100)
                                + " is not supported (at most chunked)",
                        true);
                return;
            }
        }
        if (BoundedRequestAggregator.expectsWhatCannotBeMet(request)) {
            refuse(ctx, HttpResponseStatus.EXPECTATION_FAILED, BoundedRequestAggregator.UNMET_EXPECTATION, true);
            return;
        }
        if (managementOnly) {
            refuse(
                    ctx,
                    HttpResponseStatus.NOT_FOUND,
                    "this is the management listener: it serves /metrics, /healthz and /readyz only",
                    bodyFollows);
            return;
        }
        if (!api.enabled()) {
            refuse(
                    ctx,
                    HttpResponseStatus.NOT_FOUND,
                    "nothing is served at " + path + "; the provider mirror is under " + RouteParser.PROVIDERS,
                    bodyFollows);
            return;
        }
        String authorization = request.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (authorization == null) {
            FullHttpResponse response = JsonErrors.response(
                    HttpResponseStatus.UNAUTHORIZED,
                    "the operator API wants an operator token: send \"Authorization: Bearer <operator token>\" "
                            + "(one whose hash is in operator.tokens; a client token does not open it)",
                    false);
            response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"provider-mirror operator\"");
            send(ctx, response, bodyFollows);
            return;
        }
        if (!api.tokens().accepts(authorization)) {
            refuse(
                    ctx,
                    HttpResponseStatus.FORBIDDEN,
                    "this token does not open the operator API: it wants an operator token (operator.tokens); "
                            + "client tokens (auth.tokens) never do",
                    bodyFollows);
            return;
        }
        route = OperatorRoutes.parse(request.method(), request.uri());
        if (route instanceof OperatorRoutes.Invalid invalid) {
            FullHttpResponse response =
                    JsonErrors.response(HttpResponseStatus.valueOf(invalid.status()), invalid.message(), false);
            if (invalid.status() == HttpResponseStatus.METHOD_NOT_ALLOWED.code()) {
                response.headers().set(HttpHeaderNames.ALLOW, OperatorRoutes.allowed(path));
            }
            send(ctx, response, bodyFollows);
            return;
        }
        ctx.channel().attr(ExchangeLog.ROUTE).set(OperatorAnswers.logName(route));
        if (route instanceof OperatorRoutes.Import) {
            long max = api.actions().maxBundleBytes();
            if (HttpUtil.getContentLength(request, 0L) > max) {
                refuse(ctx, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, tooLarge(max), bodyFollows);
                return;
            }
            if (!api.startImport()) {
                refuse(
                        ctx,
                        HttpResponseStatus.CONFLICT,
                        "another import is running on this mirror; try again when it has ended",
                        bodyFollows);
                return;
            }
            upload = new BundleUpload(api.actions().uploadDirectory());
            writes = CompletableFuture.runAsync(upload::open, executor);
        } else if (HttpUtil.getContentLength(request, 0L) > MAX_OTHER_BODY_BYTES) {
            refuse(ctx, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, NO_BODY, true);
            return;
        }
        if (BoundedRequestAggregator.expectsContinue(request)) {
            // Taken (an import's body streams to its file; another's is read and dropped): a client that waits
            // before sending its body (curl does past 1 MiB) may send it now.
            ContinueResponse.inTurn(ctx.pipeline(), true);
        }
    }

    private void content(ChannelHandlerContext ctx, HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        if (last) {
            active = false;
        }
        if (answered) {
            // Refused already: what is left of the body is dropped (ConnectionDiscipline closes after it).
            answered = !last;
            return;
        }
        if (!content.decoderResult().isSuccess()) {
            abortUpload();
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, "malformed HTTP request body", true);
            return;
        }
        int bytes = content.content().readableBytes();
        received += bytes;
        if (route instanceof OperatorRoutes.Import) {
            long max = api.actions().maxBundleBytes();
            if (received > max) {
                abortUpload();
                refuse(ctx, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, tooLarge(max), !last);
                return;
            }
            if (bytes > 0) {
                write(ctx, content.content().retain(), bytes);
            }
            if (last) {
                importUpload(ctx);
            }
        } else {
            if (received > MAX_OTHER_BODY_BYTES) {
                refuse(ctx, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, NO_BODY, !last);
                return;
            }
            if (last) {
                OperatorRoutes.OperatorRoute answering = route;
                whenDone(ctx, () -> OperatorAnswers.of(api, executor, answering));
            }
        }
    }

    /** Writes {@code buffer} after the writes before it, on the executor; reading pauses while much is pending. */
    private void write(ChannelHandlerContext ctx, ByteBuf buffer, int bytes) {
        pendingBytes += bytes;
        BundleUpload file = upload;
        writes = writes.handleAsync(
                (ignored, failure) -> {
                    try {
                        if (failure != null) {
                            throw failure instanceof CompletionException c ? c : new CompletionException(failure);
                        }
                        file.write(buffer.nioBuffer());
                        return null;
                    } finally {
                        buffer.release();
                        ctx.executor().execute(() -> {
                            pendingBytes -= bytes;
                            updateReading(ctx);
                        });
                    }
                },
                executor);
        updateReading(ctx);
    }

    /** The whole body arrived: once it is on disk, the import runs; the file goes when it ends, whatever the end. */
    private void importUpload(ChannelHandlerContext ctx) {
        BundleUpload file = upload;
        upload = null;
        whenDone(
                ctx,
                () -> writes.thenApplyAsync(ignored -> file.finish(), executor)
                        .thenCompose(bundle -> api.actions().importBundle(bundle))
                        .whenCompleteAsync(
                                (json, failure) -> {
                                    file.delete();
                                    api.endImport();
                                },
                                executor));
    }

    /** The upload ends without an import: the file goes once the writes queued before have run. */
    private void abortUpload() {
        if (upload == null) {
            return;
        }
        BundleUpload file = upload;
        upload = null;
        writes.whenCompleteAsync(
                (ignored, failure) -> {
                    file.delete();
                    api.endImport();
                },
                executor);
    }

    /** Answers with what {@code call} completes with, on the event loop; reading waits for it. */
    private void whenDone(ChannelHandlerContext ctx, java.util.function.Supplier<CompletableFuture<byte[]>> call) {
        CompletableFuture<byte[]> future;
        try {
            future = call.get();
        } catch (RuntimeException e) {
            future = CompletableFuture.failedFuture(e);
        }
        answered = true;
        updateReading(ctx);
        String answeredPath = path;
        String contentType = OperatorAnswers.contentType(route);
        future.whenComplete((json, failure) -> ctx.executor().execute(() -> {
            FullHttpResponse response;
            if (failure == null) {
                response = DocumentResponse.of(HttpResponseStatus.OK, contentType, json, false);
            } else if (unwrap(failure) instanceof OperatorActions.Refused refused) {
                response =
                        JsonErrors.response(HttpResponseStatus.valueOf(refused.status()), refused.getMessage(), false);
            } else {
                response = FailureResponse.of(failure, false, answeredPath);
            }
            answered = false;
            ctx.writeAndFlush(response);
            updateReading(ctx);
        }));
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    private static String tooLarge(long max) {
        return "the bundle is larger than this mirror takes through the operator API (operator.maxBundleSize: " + max
                + " bytes); raise operator.maxBundleSize, or split the export into several bundles";
    }

    private void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String message, boolean close) {
        send(ctx, JsonErrors.response(status, message, false), close);
    }

    /**
     * Answers at once; with {@code close} (a body is still coming, or the connection is in doubt) the connection
     * closes after the answer, and what is left of the request is dropped.
     */
    private void send(ChannelHandlerContext ctx, FullHttpResponse response, boolean close) {
        answered = active;
        if (close && active) {
            // The body is still coming: answer now and drop the rest; ConnectionDiscipline closes after it.
            HttpUtil.setKeepAlive(response, false);
            ctx.writeAndFlush(response);
        } else if (close) {
            HttpUtil.setKeepAlive(response, false);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.writeAndFlush(response);
        }
    }

    /**
     * Reading goes on while the request's body streams and its writes keep up; it stops while an answer is awaited
     * (the next request waits for it, as {@link MirrorHttpHandler} makes it wait) or too much waits to be written.
     */
    private void updateReading(ChannelHandlerContext ctx) {
        boolean waiting = answered && !active;
        ctx.channel()
                .config()
                .setAutoRead(!waiting
                        && pendingBytes <= MAX_PENDING_BYTES
                        && ctx.channel().isWritable());
    }

    /**
     * While an operator request is on (its body arriving, or its answer awaited), reading is this handler's to
     * decide: {@link MirrorHttpHandler}, behind, is not busy then and would turn it on at any change of writability,
     * handing on the next request to be answered ahead of this one, or reading an upload past {@link
     * #MAX_PENDING_BYTES}.
     */
    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (active || answered) {
            updateReading(ctx);
            return;
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        abortUpload();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        abortUpload();
    }
}
