package io.providermirror.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.stream.ChunkedNioFile;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.core.ArchiveSource;
import io.providermirror.server.core.CacheWriteException;
import io.providermirror.server.core.CapacityException;
import io.providermirror.server.core.PolicyDeniedException;
import io.providermirror.server.core.ProviderMirror;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.status.Operations;
import io.providermirror.upstream.OriginException;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers one request at a time per connection: routes it, asks {@link ProviderMirror}, and writes the
 * answer back on the channel's event loop. Blocking work never runs here; reading stops while a request is
 * answered, so pipelined requests are answered in order.
 */
final class MirrorHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(MirrorHttpHandler.class);
    private static final int FILE_CHUNK_SIZE = 64 * 1024;
    /** Tells operators, and warm, whether an archive came from the cache ({@code HIT}) or from its origin. */
    private static final String X_CACHE = "X-Cache";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] ALIVE = "{\"status\":\"ok\"}".getBytes(StandardCharsets.US_ASCII);

    private final HttpServices services;
    private final ProviderMirror mirror;
    private final boolean managementOnly;
    /** A request is being answered asynchronously; the next one waits. */
    private boolean busy;
    /** The connection is being closed after an answer: requests read after it are not answered. */
    private boolean closing;

    /** @param managementOnly answer only the operator endpoints (the plain-HTTP management listener) */
    MirrorHttpHandler(HttpServices services, boolean managementOnly) {
        this.services = services;
        this.mirror = services.mirror();
        this.managementOnly = managementOnly;
    }

    /** What the response needs of the request, which is released when {@code channelRead0} returns. */
    private record Exchange(ChannelHandlerContext ctx, boolean head, String range, String path,
                            ConditionalHeaders conditions) {
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (closing) {
            return;
        }
        if (!request.decoderResult().isSuccess()) {
            String message = request.decoderResult().cause() instanceof TooLongFrameException
                    ? "the request line or headers are too long (at most " + MirrorChannelInitializer.MAX_INITIAL_LINE
                    + " bytes of request line and " + MirrorChannelInitializer.MAX_HEADER_BYTES + " bytes of headers)"
                    : "malformed HTTP request";
            sendError(ctx, false, HttpResponseStatus.BAD_REQUEST, message, true);
            return;
        }
        if (request.headers().contains(HttpHeaderNames.TRANSFER_ENCODING)) {
            // The aggregator took "chunked" away; any other coding is one the mirror cannot decode, and a body
            // framed in a way this server and a proxy in front of it may read differently is how requests are
            // smuggled: refuse it and close, so nothing after it on this connection is read as a request.
            sendError(ctx, false, HttpResponseStatus.NOT_IMPLEMENTED, "Transfer-Encoding "
                    + ExchangeLog.printable(String.join(", ", request.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING)), 100)
                    + " is not supported: mirror requests have no body (at most chunked, and empty)", true);
            return;
        }
        HttpMethod method = request.method();
        boolean head = HttpMethod.HEAD.equals(method);
        if (!head && !HttpMethod.GET.equals(method)) {
            FullHttpResponse response = errorResponse(HttpResponseStatus.METHOD_NOT_ALLOWED,
                    "method " + method + " is not allowed; the mirror answers GET and HEAD", false);
            response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
            ctx.writeAndFlush(response);
            return;
        }
        String path = new QueryStringDecoder(request.uri()).rawPath();
        Exchange exchange = new Exchange(ctx, head, request.headers().get(HttpHeaderNames.RANGE), path,
                ConditionalHeaders.of(request.headers()));
        Route route = RouteParser.parse(path);
        ctx.channel().attr(ExchangeLog.ROUTE).set(Route.name(route));
        if (managementOnly && !Route.isOperational(route)) {
            sendError(ctx, head, HttpResponseStatus.NOT_FOUND,
                    "this is the management listener: it serves /metrics, /healthz and /readyz only", false);
            updateReading(ctx);
        } else if (route instanceof Route.Invalid invalid) {
            sendError(ctx, head, HttpResponseStatus.valueOf(invalid.status()), invalid.message(), false);
            updateReading(ctx);
        } else if (route instanceof Route.Health) {
            sendBytes(ctx, head, HttpResponseStatus.OK, "application/json", ALIVE);
            updateReading(ctx);
        } else if (route instanceof Route.Docs) {
            sendBytes(ctx, head, HttpResponseStatus.OK, "text/plain; charset=utf-8", services.documentation());
            updateReading(ctx);
        } else if (route instanceof Route.CaCertificate) {
            // Open with access control too: the CA certificate is public, and clients need it before anything else.
            sendCaCertificate(ctx, head);
            updateReading(ctx);
        } else if (wantsToken(route) && !services.auth().accepts(request.headers().get(HttpHeaderNames.AUTHORIZATION))) {
            sendUnauthorized(ctx, head, request.headers().get(HttpHeaderNames.HOST), route);
            updateReading(ctx);
        } else if (route instanceof Route.Archive archive && !archiveAllowed(ctx, head, archive, request)) {
            updateReading(ctx);
        } else {
            if (route instanceof Route.Home) {
                String host = request.headers().get(HttpHeaderNames.HOST);
                whenDone(exchange, () -> CompletableFuture.supplyAsync(() -> services.statusPage().render(host),
                        services.executor()), (e, page) -> sendBytes(e.ctx(), e.head(), HttpResponseStatus.OK,
                        "text/html; charset=utf-8", page));
            } else if (route instanceof Route.ProviderStatus status) {
                whenDone(exchange, () -> CompletableFuture.supplyAsync(() -> services.statusPage()
                        .renderProvider(status.address()), services.executor()), (e, page) -> {
                            if (page.isPresent()) {
                                sendBytes(e.ctx(), e.head(), HttpResponseStatus.OK, "text/html; charset=utf-8", page.get());
                            } else {
                                sendError(e.ctx(), e.head(), HttpResponseStatus.NOT_FOUND, "nothing of "
                                        + status.address() + " is cached in this mirror (origin "
                                        + status.address().hostname() + ")", false);
                            }
                        });
            } else if (route instanceof Route.Metrics) {
                whenDone(exchange, () -> CompletableFuture.supplyAsync(() -> services.operations().metricsText()
                        .getBytes(StandardCharsets.UTF_8), services.executor()), (e, text) -> sendBytes(e.ctx(),
                        e.head(), HttpResponseStatus.OK, Operations.METRICS_CONTENT_TYPE, text));
            } else if (route instanceof Route.Ready) {
                whenDone(exchange, () -> CompletableFuture.supplyAsync(services.operations()::readiness,
                        services.executor()), this::sendReadiness);
            } else if (route instanceof Route.VersionIndex index) {
                whenDone(exchange, () -> mirror.versionIndex(index.address()), this::sendDocument);
            } else if (route instanceof Route.VersionDocument document) {
                whenDone(exchange, () -> mirror.versionDocument(document.address(), document.version()),
                        this::sendDocument);
            } else if (route instanceof Route.Archive archive) {
                whenDone(exchange, () -> mirror.archive(archive.address(), archive.version(), archive.platform()),
                        this::sendArchive);
            }
        }
    }

    /**
     * What a token opens when access control is on: the JSON documents, and on the main listener the status page
     * (it lists the cached providers, private ones too) and the metrics (they name hosts and providers). The
     * management listener is for scrapers inside the cluster and stays open, as do the health checks.
     */
    private boolean wantsToken(Route route) {
        return route instanceof Route.VersionIndex || route instanceof Route.VersionDocument
                || !managementOnly && (route instanceof Route.Home || route instanceof Route.ProviderStatus
                || route instanceof Route.Metrics);
    }

    private static void sendUnauthorized(ChannelHandlerContext ctx, boolean head, String host, Route route) {
        String mirrorHost = host == null ? "<mirror host>" : ExchangeLog.printable(host, 255);
        boolean page = route instanceof Route.Home || route instanceof Route.ProviderStatus;
        String message = page || route instanceof Route.Metrics
                ? "this mirror wants a token for " + (page ? "its status page" : "/metrics")
                + ": send the header \"Authorization: Bearer <token>\" (the mirror's operators give out tokens; "
                + "the management listener serves /metrics without one)"
                : "this mirror wants a token: add credentials \"" + mirrorHost + "\" { token = \"...\" } to the CLI "
                + "configuration (the mirror's operators give out tokens)";
        FullHttpResponse response = errorResponse(HttpResponseStatus.UNAUTHORIZED, message, head);
        response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"provider-mirror\"");
        ctx.writeAndFlush(response);
    }

    /** Checks a signed archive URL (or a bearer token); answers 403 and returns false when neither is valid. */
    private boolean archiveAllowed(ChannelHandlerContext ctx, boolean head, Route.Archive archive, FullHttpRequest request) {
        if (!services.auth().enabled()) {
            return true;
        }
        java.util.Map<String, java.util.List<String>> query = new QueryStringDecoder(request.uri()).parameters();
        MirrorAuth.ArchiveVerdict verdict = services.auth().checkArchive(archive.address(), archive.version(),
                archive.platform(), first(query, "expires"), first(query, "signature"),
                request.headers().get(HttpHeaderNames.AUTHORIZATION));
        if (!verdict.allowed()) {
            sendError(ctx, head, HttpResponseStatus.FORBIDDEN, verdict.reason(), false);
        }
        return verdict.allowed();
    }

    private static java.util.Optional<String> first(java.util.Map<String, java.util.List<String>> query, String name) {
        java.util.List<String> values = query.get(name);
        return values == null || values.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(values.get(0));
    }

    private void sendCaCertificate(ChannelHandlerContext ctx, boolean head) {
        java.util.Optional<byte[]> pem = services.statusPage().caCertificate();
        if (pem.isPresent()) {
            sendBytes(ctx, head, HttpResponseStatus.OK, "application/x-pem-file", pem.get());
        } else {
            sendError(ctx, head, HttpResponseStatus.NOT_FOUND, "this mirror has no CA of its own to offer: it uses "
                    + "the certificate configured in server.tls (or plain HTTP behind a load balancer)", false);
        }
    }

    private void sendReadiness(Exchange exchange, Operations.Readiness readiness) {
        ObjectNode body = JSON.createObjectNode().put("status", readiness.ready() ? "ready" : "not ready");
        readiness.checks().forEach(body.putObject("checks")::put);
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        sendBytes(exchange.ctx(), exchange.head(), readiness.ready() ? HttpResponseStatus.OK
                : HttpResponseStatus.SERVICE_UNAVAILABLE, "application/json", bytes);
    }

    /**
     * Answers with what {@code call} completes with. What is ready at once (a warm document, a cached archive)
     * is answered right here, reading on; otherwise reading stops until the answer is sent from the event loop.
     */
    private <T> void whenDone(Exchange exchange, Supplier<CompletableFuture<T>> call, BiConsumer<Exchange, T> sender) {
        CompletableFuture<T> future;
        try {
            future = call.get();
        } catch (RuntimeException e) {
            future = CompletableFuture.failedFuture(e);
        }
        if (future.isDone()) {
            answer(exchange, future.handle((value, failure) -> new Completion<>(value, failure)).join(), sender);
            return;
        }
        busy = true;
        updateReading(exchange.ctx());
        future.whenComplete((value, failure) -> exchange.ctx().executor().execute(() -> {
            busy = false;
            answer(exchange, new Completion<>(value, failure), sender);
        }));
    }

    /** A future's outcome: its value, or why it failed. */
    private record Completion<T>(T value, Throwable failure) {
    }

    private <T> void answer(Exchange exchange, Completion<T> completion, BiConsumer<Exchange, T> sender) {
        if (completion.failure() != null) {
            sendFailure(exchange, completion.failure());
        } else if (!exchange.ctx().channel().isActive()) {
            closeQuietly(completion.value());
        } else {
            sender.accept(exchange, completion.value());
        }
        updateReading(exchange.ctx());
    }

    /**
     * Reads the next request only when none is being answered and the client takes what it is sent: a client
     * that pipelines requests without reading the answers cannot make the server queue them in memory.
     */
    private void updateReading(ChannelHandlerContext ctx) {
        ctx.channel().config().setAutoRead(!busy && ctx.channel().isWritable());
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        updateReading(ctx);
        super.channelWritabilityChanged(ctx);
    }

    private void sendDocument(Exchange exchange, RenderedDocument document) {
        sendBytes(exchange.ctx(), exchange.head(), HttpResponseStatus.OK, "application/json", document.json());
    }

    private void sendArchive(Exchange exchange, ArchiveSource source) {
        if (source instanceof ArchiveSource.Cached cached) {
            sendCached(exchange, cached);
        } else if (source instanceof ArchiveSource.Filling filling) {
            sendFilling(exchange, filling);
        }
    }

    private void sendCached(Exchange exchange, ArchiveSource.Cached cached) {
        ChannelHandlerContext ctx = exchange.ctx();
        ctx.channel().attr(ExchangeLog.SOURCE).set(MirrorMetrics.Source.CACHE);
        long size = cached.blob().size();
        String etag = "\"" + cached.blob().sha256() + "\"";
        String lastModified = DateFormatter.format(Date.from(cached.blob().committedAt()));
        if (exchange.conditions().notModified(etag)) {
            closeQuietly(cached);
            FullHttpResponse notModified = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.NOT_MODIFIED, Unpooled.EMPTY_BUFFER);
            notModified.headers()
                    .set(HttpHeaderNames.ETAG, etag)
                    .set(HttpHeaderNames.LAST_MODIFIED, lastModified)
                    .set(HttpHeaderNames.CACHE_CONTROL, "public, max-age=31536000, immutable")
                    .set(X_CACHE, "HIT");
            // The length a 200 would have (RFC 9110 allows it); it also tells the keep-alive handler where the
            // response ends, so the connection stays open.
            HttpUtil.setContentLength(notModified, size);
            ctx.writeAndFlush(notModified);
            return;
        }
        String range = exchange.conditions().rangeApplies(etag, lastModified) ? exchange.range() : null;
        ByteRange.Outcome outcome = ByteRange.parse(range, size);
        if (outcome instanceof ByteRange.Outcome.Unsatisfiable) {
            closeQuietly(cached);
            FullHttpResponse response = errorResponse(HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE,
                    "the requested range is outside the archive's " + size + " bytes", exchange.head());
            response.headers().set(HttpHeaderNames.CONTENT_RANGE, "bytes */" + size);
            ctx.writeAndFlush(response);
            return;
        }
        long offset = 0;
        long length = size;
        HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        if (outcome instanceof ByteRange.Outcome.Partial partial) {
            offset = partial.range().start();
            length = partial.range().length();
            response.setStatus(HttpResponseStatus.PARTIAL_CONTENT);
            response.headers().set(HttpHeaderNames.CONTENT_RANGE,
                    "bytes " + offset + "-" + partial.range().endInclusive() + "/" + size);
        }
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "application/zip")
                .set(HttpHeaderNames.ACCEPT_RANGES, HttpHeaderValues.BYTES)
                .set(HttpHeaderNames.ETAG, etag)
                .set(HttpHeaderNames.LAST_MODIFIED, lastModified)
                .set(HttpHeaderNames.CACHE_CONTROL, "public, max-age=31536000, immutable")
                .set(X_CACHE, "HIT");
        HttpUtil.setContentLength(response, length);
        if (exchange.head()) {
            closeQuietly(cached);
            ctx.write(response);
            ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            return;
        }
        ctx.write(response);
        ChannelFuture done;
        try {
            if (!(cached.channel() instanceof FileChannel file)) {
                // Not on the local disk: read into buffers as the connection drains.
                done = ctx.writeAndFlush(new HttpChunkedInput(
                        new ChannelRangeInput(cached.channel(), offset, length, FILE_CHUNK_SIZE)));
            } else if (ctx.pipeline().get(SslHandler.class) != null) {
                done = ctx.writeAndFlush(new HttpChunkedInput(
                        new ChunkedNioFile(file, offset, length, FILE_CHUNK_SIZE)));
            } else {
                ctx.write(new DefaultFileRegion(file, offset, length));
                done = ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly(cached);
            ctx.close();
            return;
        }
        done.addListener(future -> {
            // Releases the lease that kept the archive from being evicted while it was sent.
            closeQuietly(cached);
            if (!future.isSuccess()) {
                ctx.close();
            }
        });
    }

    private void sendFilling(Exchange exchange, ArchiveSource.Filling filling) {
        ChannelHandlerContext ctx = exchange.ctx();
        ctx.channel().attr(ExchangeLog.SOURCE).set(MirrorMetrics.Source.UPSTREAM);
        HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/zip").set(X_CACHE, "MISS");
        if (filling.length().isPresent()) {
            HttpUtil.setContentLength(response, filling.length().getAsLong());
        } else {
            HttpUtil.setTransferEncodingChunked(response, true);
        }
        if (exchange.head()) {
            closeQuietly(filling);
            ctx.write(response);
            ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            return;
        }
        ChunkedWriteHandler chunked = ctx.pipeline().get(ChunkedWriteHandler.class);
        AutoCloseable subscription = filling.fill().onProgress(chunked::resumeTransfer);
        ctx.write(response);
        ChannelFuture done = ctx.writeAndFlush(new HttpChunkedInput(new FillChunkedInput(filling.fill(),
                filling.channel(), filling.length().orElse(-1))));
        done.addListener(future -> {
            closeQuietly(subscription);
            if (!future.isSuccess()) {
                // Closing without the rest of the body is how a client learns the archive was not good.
                LOG.debug("archive response for {} aborted: {}", exchange.path(), future.cause().toString());
                ctx.close();
            }
        });
    }

    private void sendFailure(Exchange exchange, Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof OriginException origin) {
            HttpResponseStatus status = switch (origin.reason()) {
                case NOT_FOUND -> HttpResponseStatus.NOT_FOUND;
                case FORBIDDEN -> HttpResponseStatus.FORBIDDEN;
                case TIMEOUT -> HttpResponseStatus.GATEWAY_TIMEOUT;
                case UNAVAILABLE, BAD_RESPONSE, VERIFICATION_FAILED -> HttpResponseStatus.BAD_GATEWAY;
            };
            sendError(exchange.ctx(), exchange.head(), status, origin.getMessage(), false);
            return;
        }
        if (cause instanceof PolicyDeniedException denied) {
            sendError(exchange.ctx(), exchange.head(), HttpResponseStatus.NOT_FOUND,
                    "refused by this mirror's policy: " + denied.getMessage(), false);
            return;
        }
        if (cause instanceof CapacityException capacity) {
            boolean disk = capacity.limit() == CapacityException.Limit.DISK;
            FullHttpResponse response = errorResponse(disk ? HttpResponseStatus.INSUFFICIENT_STORAGE
                    : HttpResponseStatus.SERVICE_UNAVAILABLE, capacity.getMessage(), exchange.head());
            if (!disk) {
                // Busy, not broken: a client (or the operator's retry loop) may try again shortly.
                response.headers().set(HttpHeaderNames.RETRY_AFTER, capacity.retryAfter().toSeconds());
            }
            exchange.ctx().writeAndFlush(response);
            return;
        }
        if (cause instanceof CacheWriteException cacheTrouble) {
            sendError(exchange.ctx(), exchange.head(), HttpResponseStatus.SERVICE_UNAVAILABLE, cacheTrouble.getMessage(),
                    false);
            return;
        }
        LOG.error("internal error answering {}", exchange.path(), cause);
        sendError(exchange.ctx(), exchange.head(), HttpResponseStatus.INTERNAL_SERVER_ERROR,
                "internal error in the mirror; its log has the details", false);
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static void sendBytes(ChannelHandlerContext ctx, boolean head, HttpResponseStatus status,
                                  String contentType, byte[] body) {
        ByteBuf content = head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, contentType)
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        HttpUtil.setContentLength(response, body.length);
        ctx.writeAndFlush(response);
    }

    private void sendError(ChannelHandlerContext ctx, boolean head, HttpResponseStatus status, String message,
                           boolean close) {
        FullHttpResponse response = errorResponse(status, message, head);
        if (close) {
            closing = true;
            HttpUtil.setKeepAlive(response, false);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.writeAndFlush(response);
        }
    }

    private static FullHttpResponse errorResponse(HttpResponseStatus status, String message, boolean head) {
        return JsonErrors.response(status, message, head);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof IdleStateEvent) {
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!(cause instanceof IOException) && !(cause instanceof ClosedChannelException)) {
            LOG.warn("closing connection from {} after an error", ctx.channel().remoteAddress(), cause);
        }
        ctx.close();
    }

    private static void closeQuietly(Object resource) {
        if (resource instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.debug("closing {} failed: {}", resource, e.toString());
            }
        }
    }
}
