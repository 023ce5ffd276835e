package io.providermirror.server.http;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.providermirror.server.access.Client;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.server.inventory.UsageItem;
import io.providermirror.server.providers.ProviderMirror;
import io.providermirror.server.status.Operations;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers one request at a time per connection: routes it, asks {@link ProviderMirror}, and writes the
 * answer back on the channel's event loop. Blocking work never runs here; reading stops while a request is
 * answered, so pipelined requests are answered in order. How each kind of answer is written lives beside it:
 * {@link ArchiveResponse}, {@link DocumentResponse}, {@link FailureResponse}, {@link AccessGate}.
 */
final class MirrorHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(MirrorHttpHandler.class);
    private static final byte[] ALIVE = "{\"status\":\"ok\"}".getBytes(StandardCharsets.US_ASCII);

    private final HttpServices services;
    private final ProviderMirror mirror;
    private final boolean managementOnly;
    private final AccessGate access;
    private final RouteCache routes;
    private final RegistryDownloadDocuments downloads;
    /** A request is being answered asynchronously; the next one waits. */
    private boolean busy;
    /** The connection is being closed after an answer: requests read after it are not answered. */
    private boolean closing;

    /**
     * @param managementOnly answer only the operator endpoints (the plain-HTTP management listener)
     * @param routes         the listener's parsed routes, shared by its connections
     * @param downloads      the listener's providers.v1 download documents, shared by its connections
     */
    MirrorHttpHandler(
            HttpServices services, boolean managementOnly, RouteCache routes, RegistryDownloadDocuments downloads) {
        this.services = services;
        this.routes = routes;
        this.downloads = downloads;
        this.mirror = services.mirror();
        this.managementOnly = managementOnly;
        this.access = new AccessGate(services.auth(), managementOnly);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (closing) {
            return;
        }
        if (!request.decoderResult().isSuccess()) {
            String message = request.decoderResult().cause() instanceof TooLongFrameException
                    ? "the request line or headers are too long (at most " + MirrorChannelInitializer.MAX_INITIAL_LINE
                            + " bytes of request line and " + MirrorChannelInitializer.MAX_HEADER_BYTES
                            + " bytes of headers)"
                    : "malformed HTTP request";
            sendErrorAndClose(ctx, HttpResponseStatus.BAD_REQUEST, message);
            return;
        }
        if (request.headers().contains(HttpHeaderNames.TRANSFER_ENCODING)) {
            // The aggregator took "chunked" away; any other coding is one the mirror cannot decode, and a body
            // framed in a way this server and a proxy in front of it may read differently is how requests are
            // smuggled: refuse it and close, so nothing after it on this connection is read as a request.
            String codings = String.join(", ", request.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING));
            sendErrorAndClose(
                    ctx,
                    HttpResponseStatus.NOT_IMPLEMENTED,
                    "Transfer-Encoding "
                            + ExchangeLog.printable(codings, 100)
                            + " is not supported: mirror requests have no body (at most chunked, and empty)");
            return;
        }
        if (BoundedRequestAggregator.expectsWhatCannotBeMet(request)) {
            sendErrorAndClose(ctx, HttpResponseStatus.EXPECTATION_FAILED, BoundedRequestAggregator.UNMET_EXPECTATION);
            return;
        }
        HttpMethod method = request.method();
        boolean head = HttpMethod.HEAD.equals(method);
        if (HttpMethod.POST.equals(method)
                && !managementOnly
                && StatusLogin.PATH.equals(new QueryStringDecoder(request.uri()).rawPath())) {
            ctx.channel().attr(ExchangeLog.ROUTE).set("login");
            ctx.writeAndFlush(access.signIn(request));
            updateReading(ctx);
            return;
        }
        if (!head && !HttpMethod.GET.equals(method)) {
            FullHttpResponse response = JsonErrors.response(
                    HttpResponseStatus.METHOD_NOT_ALLOWED,
                    "method " + method + " is not allowed; the mirror answers GET and HEAD",
                    false);
            response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
            ctx.writeAndFlush(response);
            return;
        }
        String path = new QueryStringDecoder(request.uri()).rawPath();
        Route route = routes.route(path);
        ctx.channel().attr(ExchangeLog.ROUTE).set(Route.name(route));
        FullHttpResponse immediate = immediateAnswer(route, head);
        Client client = Client.ANONYMOUS;
        if (immediate == null) {
            AccessGate.Decision decision = access.decide(route, request, head);
            client = decision.client();
            immediate = decision.refusal();
        }
        ctx.channel().attr(ExchangeLog.CLIENT).set(client.name());
        if (immediate != null) {
            ctx.writeAndFlush(immediate);
            updateReading(ctx);
            return;
        }
        Exchange exchange = new Exchange(
                ctx,
                head,
                request.headers().get(HttpHeaderNames.RANGE),
                path,
                ConditionalHeaders.of(request.headers()),
                client.name());
        answerWhenReady(exchange, route, request);
    }

    /**
     * The answer that needs neither the mirror, nor access control, nor another thread: a refusal of what is not
     * here, or an endpoint whose bytes are at hand. Null when the request goes on to {@link AccessGate}.
     */
    private FullHttpResponse immediateAnswer(Route route, boolean head) {
        if (managementOnly && !Route.isOperational(route)) {
            return JsonErrors.response(
                    HttpResponseStatus.NOT_FOUND,
                    "this is the management listener: it serves /metrics, /healthz and /readyz only",
                    head);
        } else if (route instanceof Route.Invalid invalid) {
            return JsonErrors.response(HttpResponseStatus.valueOf(invalid.status()), invalid.message(), head);
        } else if (route instanceof Route.Health) {
            return DocumentResponse.of(HttpResponseStatus.OK, "application/json", ALIVE, head);
        } else if (route instanceof Route.Docs docs) {
            return services.manual()
                    .page(docs.page())
                    .map(text -> DocumentResponse.of(HttpResponseStatus.OK, "text/plain; charset=utf-8", text, head))
                    .orElseGet(() -> JsonErrors.response(
                            HttpResponseStatus.NOT_FOUND,
                            "no such page of the manual: " + docs.page() + ".md (the manual starts at /docs)",
                            head));
        } else if (route instanceof Route.CaCertificate) {
            // Open with access control too: the CA certificate is public, and clients need it before anything else.
            return DocumentResponse.caCertificate(services.statusPage().caCertificate(), head);
        }
        return null;
    }

    /** Asks the mirror (or, for the operator pages, the executor) and answers when that completes. */
    private void answerWhenReady(Exchange exchange, Route route, FullHttpRequest request) {
        if (route instanceof Route.VersionIndex index) {
            whenDone(
                    exchange,
                    () -> services.networkMirror().versionIndex(index.address()),
                    MirrorHttpHandler::sendDocument);
        } else if (route instanceof Route.VersionDocument document) {
            whenDone(
                    exchange,
                    () -> services.networkMirror()
                            .versionDocument(document.address(), document.version(), exchange.client()),
                    MirrorHttpHandler::sendDocument);
        } else if (route instanceof Route.Archive archive) {
            whenDone(
                    exchange,
                    () -> mirror.archive(archive.address(), archive.version(), archive.platform()),
                    (e, source) -> {
                        InventoryRecording.requested(
                                services.inventory(),
                                e,
                                UsageItem.provider(archive.address(), archive.version(), archive.platform()));
                        ArchiveResponse.send(e, source, services.metrics());
                    });
        } else if (route instanceof Route.ModuleVersions versions) {
            whenDone(exchange, () -> services.modules().versions(versions.address()), MirrorHttpHandler::sendDocument);
        } else if (route instanceof Route.ModuleDownload download) {
            String host = request.headers().get(HttpHeaderNames.HOST);
            whenDone(
                    exchange,
                    () -> services.modules().download(download.address(), download.version()),
                    (e, answer) -> e.ctx()
                            .writeAndFlush(ModuleDownloadResponse.of(
                                    answer, download, host, services.auth(), e.client(), e.head())));
        } else if (route instanceof Route.ModuleArchive archive) {
            whenDone(
                    exchange,
                    () -> services.modules().archive(archive.address(), archive.version(), archive.extension()),
                    (e, source) -> {
                        InventoryRecording.requested(
                                services.inventory(), e, UsageItem.module(archive.address(), archive.version()));
                        ArchiveResponse.send(e, source, services.metrics());
                    });
        } else if (route instanceof Route.RegistryDiscovery discovery) {
            exchange.ctx()
                    .writeAndFlush(RegistryDiscovery.response(
                            discovery,
                            request.headers().get(HttpHeaderNames.HOST),
                            services.registry(),
                            services.modules(),
                            exchange.head()));
        } else if (route instanceof Route.ModuleApi api) {
            whenDone(
                    exchange,
                    () -> ModuleApiRoutes.answer(services.modules().catalog(), api.request(), request, exchange.head()),
                    (e, response) -> e.ctx().writeAndFlush(response));
        } else if (route instanceof Route.RegistryVersions versions) {
            whenDone(exchange, () -> services.registry().versions(versions.address()), MirrorHttpHandler::sendDocument);
        } else if (route instanceof Route.RegistryDownload download) {
            whenDone(
                    exchange,
                    () -> services.registry().download(download.address(), download.version(), download.platform()),
                    (e, pkg) -> sendDocument(e, downloads.document(download, pkg, e.client())));
        } else if (route instanceof Route.RegistryChecksums checksums) {
            whenDone(
                    exchange,
                    () -> services.registry().download(checksums.address(), checksums.version(), checksums.platform()),
                    (e, pkg) -> {
                        boolean sums = checksums.file() == Route.ChecksumFile.SHA256SUMS;
                        e.ctx()
                                .writeAndFlush(DocumentResponse.of(
                                        HttpResponseStatus.OK,
                                        sums ? "text/plain; charset=utf-8" : "application/octet-stream",
                                        sums ? pkg.sha256Sums() : pkg.signature(),
                                        e.head()));
                    });
        } else if (route instanceof Route.Home) {
            String host = request.headers().get(HttpHeaderNames.HOST);
            whenDone(
                    exchange,
                    () -> CompletableFuture.supplyAsync(
                            () -> services.statusPage().render(HostAuthority.checked(host)), services.executor()),
                    (e, page) -> e.ctx()
                            .writeAndFlush(DocumentResponse.of(
                                    HttpResponseStatus.OK, "text/html; charset=utf-8", page, e.head())));
        } else if (route instanceof Route.StatusJson) {
            whenDone(
                    exchange,
                    () -> CompletableFuture.supplyAsync(
                            () -> services.statusPage().renderJson(), services.executor()),
                    (e, json) -> e.ctx()
                            .writeAndFlush(
                                    DocumentResponse.of(HttpResponseStatus.OK, "application/json", json, e.head())));
        } else if (route instanceof Route.ProviderStatus status) {
            whenDone(
                    exchange,
                    () -> CompletableFuture.supplyAsync(
                            () -> services.statusPage().renderProvider(status.address()), services.executor()),
                    (e, page) ->
                            e.ctx().writeAndFlush(DocumentResponse.providerStatus(page, status.address(), e.head())));
        } else if (route instanceof Route.Metrics) {
            whenDone(
                    exchange,
                    () -> CompletableFuture.supplyAsync(
                            () -> services.operations().metricsText().getBytes(StandardCharsets.UTF_8),
                            services.executor()),
                    (e, text) -> e.ctx()
                            .writeAndFlush(DocumentResponse.of(
                                    HttpResponseStatus.OK, Operations.METRICS_CONTENT_TYPE, text, e.head())));
        } else if (route instanceof Route.Log resource) {
            whenDone(
                    exchange,
                    () -> CompletableFuture.supplyAsync(
                            () -> LogResponses.read(services.log(), resource), services.executor()),
                    (e, body) -> e.ctx().writeAndFlush(LogResponses.of(resource, body, e.head())));
        } else if (route instanceof Route.Ready) {
            whenDone(
                    exchange,
                    () -> CompletableFuture.supplyAsync(services.operations()::readiness, services.executor()),
                    (e, readiness) -> e.ctx().writeAndFlush(DocumentResponse.readiness(readiness, e.head())));
        }
    }

    private static void sendDocument(Exchange exchange, RenderedDocument document) {
        exchange.ctx()
                .writeAndFlush(DocumentResponse.of(
                        HttpResponseStatus.OK, "application/json", document.json(), exchange.head()));
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
            answer(
                    exchange,
                    future.handle((value, failure) -> new Completion<>(value, failure))
                            .join(),
                    sender);
            return;
        }
        busy = true;
        updateReading(exchange.ctx());
        future.whenComplete((value, failure) -> {
            try {
                exchange.ctx().executor().execute(() -> {
                    busy = false;
                    answer(exchange, new Completion<>(value, failure), sender);
                });
            } catch (RejectedExecutionException stopping) {
                // The event loop has shut down (the mirror stops): nobody will send it, so what was opened is closed.
                ArchiveResponse.closeQuietly(value);
            }
        });
    }

    /** A future's outcome: its value, or why it failed. */
    private record Completion<T>(T value, Throwable failure) {}

    private <T> void answer(Exchange exchange, Completion<T> completion, BiConsumer<Exchange, T> sender) {
        if (completion.failure() != null) {
            LogResponses.recordRefusal(services.log(), completion.failure(), exchange.path());
            exchange.ctx().writeAndFlush(FailureResponse.of(completion.failure(), exchange.head(), exchange.path()));
        } else if (!exchange.ctx().channel().isActive()) {
            ArchiveResponse.closeQuietly(completion.value());
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

    /** Answers a request that leaves the connection in doubt, and closes it: nothing read after it is answered. */
    private void sendErrorAndClose(ChannelHandlerContext ctx, HttpResponseStatus status, String message) {
        FullHttpResponse response = JsonErrors.response(status, message, false);
        closing = true;
        HttpUtil.setKeepAlive(response, false);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!(cause instanceof IOException) && !(cause instanceof ClosedChannelException)) {
            LOG.warn("closing connection from {} after an error", ctx.channel().remoteAddress(), cause);
        }
        ctx.close();
    }
}
