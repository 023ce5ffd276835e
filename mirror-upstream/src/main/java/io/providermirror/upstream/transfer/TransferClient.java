package io.providermirror.upstream.transfer;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.pool.ChannelPool;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.resolver.NoopAddressResolverGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;
import javax.net.ssl.X509TrustManager;

/**
 * An HTTP/1.1 client for large bodies: connections to exactly the address the caller gives (it was checked there, so
 * no later name lookup can lead elsewhere) or through an egress proxy; TLS with the caller's trust, the host name
 * verified and sent as SNI; the body left on the socket until its reader asks for it. A connection whose response
 * arrived whole is kept a few seconds for the next request with exactly the same {@link ConnectionRoute}
 * ({@link ConnectionReuse}), which then needs no new TCP and TLS handshake. It owns a small event-loop group of daemon
 * threads, shut down by {@link #close()}. Failures are the JDK's exception types, so they read as those of the JDK's
 * client: {@link HttpConnectTimeoutException}, {@link java.net.ConnectException}, {@link HttpTimeoutException} when no
 * response head came in time, {@link SSLException}, {@link TunnelRefused}.
 */
public final class TransferClient implements AutoCloseable {

    /** The longest status line, the most header bytes, the largest body buffer handed over at once. */
    private static final int MAX_INITIAL_LINE = 8 * 1024;

    private static final int MAX_HEADERS = 64 * 1024;
    private static final int MAX_CHUNK = 1 << 20;

    private final TransferTransport transport;
    private final EventLoopGroup group;
    private final ConnectionReuse reuse;
    private final ConnectionPool connections;
    private final SslContext tls;

    /**
     * A client trusting {@code trust}, on epoll and OpenSSL when {@code nativeTransport} and they load, keeping idle
     * connections as {@code reuse} allows.
     *
     * @param connectTimeout the longest a new TCP connection may take
     * @param setupTimeout   the longest a new connection may take to be ready (TCP, the proxy's tunnel, TLS), even
     *                       when the request that asked for it gave up sooner
     * @throws SSLException when no TLS context can be built with that trust
     */
    public TransferClient(
            X509TrustManager trust,
            boolean nativeTransport,
            ConnectionReuse reuse,
            Duration connectTimeout,
            Duration setupTimeout)
            throws SSLException {
        this.transport = TransferTransport.choose(nativeTransport);
        this.tls = SslContextBuilder.forClient()
                .sslProvider(transport.sslProvider())
                .trustManager(trust)
                .endpointIdentificationAlgorithm("HTTPS")
                .build();
        int threads = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));
        this.group = transport.newGroup(threads, new DefaultThreadFactory("origin-transfer", true));
        this.reuse = reuse;
        Bootstrap bootstrap = new Bootstrap()
                .group(group)
                .channel(transport.channel())
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int)
                        Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
                // Every address is resolved by the caller (and checked), or left to the proxy: never by Netty.
                .resolver(NoopAddressResolverGroup.INSTANCE);
        this.connections = new ConnectionPool(bootstrap, tls, reuse, setupTimeout);
    }

    /**
     * Does once what the first connection would otherwise do on its own time: starts every event loop and makes one
     * TLS engine (OpenSSL's client context is finished on the first), then frees it.
     */
    public void prepare() {
        for (io.netty.util.concurrent.EventExecutor loop : group) {
            loop.submit(() -> {}).syncUninterruptibly();
        }
        javax.net.ssl.SSLEngine engine = tls.newEngine(io.netty.buffer.ByteBufAllocator.DEFAULT);
        io.netty.util.ReferenceCountUtil.release(engine);
    }

    /** Idle connections kept now, all routes together. */
    int idleConnections() {
        return connections.idleCount();
    }

    /** For the log: e.g. {@code epoll, TLS by BoringSSL}. */
    public String describe() {
        return transport.describe();
    }

    /**
     * Sends {@code request} and returns once the response's head has arrived; the caller reads and closes its body.
     * On a kept connection that turns out to be closed before any answer, the request is sent again on another.
     *
     * @throws HttpConnectTimeoutException when the connection took longer than the request's connectTimeout
     * @throws HttpTimeoutException        when no head arrived within its headTimeout
     */
    public TransferResponse send(TransferRequest request) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + request.headTimeout().toNanos();
        ConnectionRoute route = ConnectionRoute.of(request);
        ChannelPool pool = connections.of(route);
        // Each kept connection is tried at most once, then a new one is made.
        for (int attempt = 0; ; attempt++) {
            Channel channel = acquire(pool, route, request, deadline);
            TransferHandler handler =
                    new TransferHandler(route.destination(), ConnectionPool.markUsed(channel), pool, channel);
            try {
                return exchange(channel, request, handler, deadline);
            } catch (StaleConnection stale) {
                if (attempt >= reuse.maxIdlePerRoute()) {
                    throw stale.failure();
                }
            }
        }
    }

    /** A ready connection of {@code pool}, within the request's deadline. */
    private Channel acquire(ChannelPool pool, ConnectionRoute route, TransferRequest request, long deadline)
            throws IOException, InterruptedException {
        Future<Channel> acquired = pool.acquire();
        // The channel's own connect timeout normally fires first; the head's deadline bounds the wait regardless.
        long connectWait = request.connectTimeout().toNanos() + TimeUnit.SECONDS.toNanos(1);
        long left = deadline - System.nanoTime();
        boolean headFirst = left < connectWait;
        boolean done;
        try {
            done = acquired.await(Math.max(0, left), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            closeWhenAcquired(acquired);
            throw e;
        }
        if (!done) {
            closeWhenAcquired(acquired);
            throw headFirst
                    ? new HttpTimeoutException("request timed out")
                    : new HttpConnectTimeoutException("connecting timed out");
        }
        if (!acquired.isSuccess()) {
            Throwable cause = acquired.cause();
            if (cause instanceof ConnectTimeoutException) {
                throw new HttpConnectTimeoutException(cause.getMessage());
            }
            if (cause instanceof HttpTimeoutException timeout) {
                throw timeout;
            }
            throw TransferHandler.describe(route.destination(), cause);
        }
        return acquired.getNow();
    }

    /** A connection the request no longer waits for is closed once it comes, not kept: it was never used. */
    private static void closeWhenAcquired(Future<Channel> acquired) {
        acquired.addListener(done -> {
            if (done.isSuccess()) {
                ((Channel) done.getNow()).close();
            }
        });
    }

    /** Sends the request on {@code channel} and waits for the response's head. */
    private TransferResponse exchange(Channel channel, TransferRequest request, TransferHandler handler, long deadline)
            throws IOException, InterruptedException {
        try {
            channel.eventLoop().execute(() -> start(channel, newRequest(request), handler));
        } catch (RejectedExecutionException closed) {
            throw new IOException("the origin client is closed", closed);
        }
        long left = deadline - System.nanoTime();
        try {
            HttpResponse head = handler.head().get(Math.max(0, left), TimeUnit.NANOSECONDS);
            return new TransferResponse(request.uri(), head, handler, request.readTimeout());
        } catch (TimeoutException e) {
            handler.abandon();
            throw new HttpTimeoutException("request timed out");
        } catch (InterruptedException e) {
            handler.abandon();
            throw e;
        } catch (ExecutionException e) {
            handler.abandon();
            throw (IOException) e.getCause();
        }
    }

    /**
     * Puts the exchange's handlers into {@code channel}'s pipeline and sends {@code get} (on its event loop). A
     * connection closed between the pool's check and now fails the head at once (a kept one as stale, so the
     * request is sent again on another): its pipeline may already be emptied, and a handler added to it would
     * never hear of anything.
     */
    static void start(Channel channel, FullHttpRequest get, TransferHandler handler) {
        ChannelPipeline pipeline = channel.pipeline();
        if (!channel.isActive() || pipeline.get(ConnectionPool.GUARD) == null) {
            get.release();
            handler.fail(new IOException("the connection closed before the response began"));
            channel.close();
            return;
        }
        pipeline.addBefore(
                ConnectionPool.GUARD,
                TransferHandler.HTTP,
                new HttpClientCodec(MAX_INITIAL_LINE, MAX_HEADERS, MAX_CHUNK));
        pipeline.addBefore(ConnectionPool.GUARD, "exchange", handler);
        channel.writeAndFlush(get).addListener((ChannelFutureListener) written -> {
            if (!written.isSuccess()) {
                handler.fail(written.cause());
                written.channel().close();
            }
        });
        handler.demand();
    }

    /** The GET: origin-form, or absolute-form to a proxy for plain http; the connection kept open (HTTP/1.1). */
    private static FullHttpRequest newRequest(TransferRequest request) {
        URI uri = request.uri();
        String path = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        String host = uri.getHost() + (uri.getPort() == -1 ? "" : ":" + uri.getPort());
        boolean proxied = request.proxy() != null && !request.secure();
        FullHttpRequest get = new DefaultFullHttpRequest(
                HttpVersion.HTTP_1_1, HttpMethod.GET, proxied ? uri.getScheme() + "://" + host + path : path);
        get.headers().set(HttpHeaderNames.HOST, host);
        request.headers().forEach(get.headers()::set);
        if (proxied && request.proxy().username() != null) {
            String credentials =
                    request.proxy().username() + ":" + request.proxy().password();
            get.headers()
                    .set(
                            HttpHeaderNames.PROXY_AUTHORIZATION,
                            "Basic "
                                    + Base64.getEncoder()
                                            .encodeToString(
                                                    credentials.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }
        return get;
    }

    /** Closes every connection and stops the client's threads. */
    @Override
    public void close() {
        connections.close();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
