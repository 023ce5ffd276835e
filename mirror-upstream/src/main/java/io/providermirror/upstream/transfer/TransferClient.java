package io.providermirror.upstream.transfer;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.proxy.HttpProxyHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.resolver.NoopAddressResolverGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.Base64;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;
import javax.net.ssl.X509TrustManager;

/**
 * An HTTP/1.1 client for large bodies: one connection per request, to exactly the address the caller gives (it was
 * checked there, so no later name lookup can lead elsewhere) or through an egress proxy; TLS with the caller's trust,
 * the host name verified and sent as SNI; the body left on the socket until its reader asks for it. It owns a small
 * event-loop group of daemon threads, shut down by {@link #close()}. Failures are the JDK's exception types, so they
 * read as those of the JDK's client: {@link HttpConnectTimeoutException}, {@link java.net.ConnectException},
 * {@link HttpTimeoutException} when no response head came in time, {@link SSLException}, {@link TunnelRefused}.
 */
public final class TransferClient implements AutoCloseable {

    /** The longest status line, the most header bytes, the largest body buffer handed over at once. */
    private static final int MAX_INITIAL_LINE = 8 * 1024;

    private static final int MAX_HEADERS = 64 * 1024;
    private static final int MAX_CHUNK = 1 << 20;

    private final TransferTransport transport;
    private final SslContext tls;
    private final EventLoopGroup group;

    /**
     * A client trusting {@code trust}, on epoll and OpenSSL when {@code nativeTransport} and they load.
     *
     * @throws SSLException when no TLS context can be built with that trust
     */
    public TransferClient(X509TrustManager trust, boolean nativeTransport) throws SSLException {
        this.transport = TransferTransport.choose(nativeTransport);
        this.tls = SslContextBuilder.forClient()
                .sslProvider(transport.sslProvider())
                .trustManager(trust)
                .endpointIdentificationAlgorithm("HTTPS")
                .build();
        int threads = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));
        this.group = transport.newGroup(threads, new DefaultThreadFactory("origin-transfer", true));
    }

    /** For the log: e.g. {@code epoll, TLS by BoringSSL}. */
    public String describe() {
        return transport.describe();
    }

    /**
     * Sends {@code request} and returns once the response's head has arrived; the caller reads and closes its body.
     *
     * @throws HttpConnectTimeoutException when the connection took longer than the request's connectTimeout
     * @throws HttpTimeoutException        when no head arrived within its headTimeout
     */
    public TransferResponse send(TransferRequest request) throws IOException, InterruptedException {
        long started = System.nanoTime();
        TransferHandler handler = new TransferHandler(request.host() + ":" + request.port());
        Bootstrap bootstrap = new Bootstrap()
                .group(group)
                .channel(transport.channel())
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int)
                        Math.min(Integer.MAX_VALUE, request.connectTimeout().toMillis()))
                // Every address is resolved by the caller (and checked), or left to the proxy: never by Netty.
                .resolver(NoopAddressResolverGroup.INSTANCE)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        pipeline(channel, request, handler);
                    }
                });
        boolean tunnelled = request.proxy() != null && request.secure();
        SocketAddress remote = request.proxy() == null
                ? request.address()
                : tunnelled
                        // The proxy handler connects to the proxy and asks it for this destination, by name.
                        ? InetSocketAddress.createUnresolved(request.host(), request.port())
                        : request.proxy().address();
        ChannelFuture connect = bootstrap.connect(remote);
        // The channel's own connect timeout normally fires first; the head's deadline bounds the wait regardless.
        long connectWait = request.connectTimeout().toNanos() + TimeUnit.SECONDS.toNanos(1);
        boolean headFirst = request.headTimeout().toNanos() < connectWait;
        boolean done;
        try {
            done = connect.await(Math.min(connectWait, request.headTimeout().toNanos()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            connect.channel().close();
            throw e;
        }
        if (!done) {
            connect.channel().close();
            throw headFirst
                    ? new HttpTimeoutException("request timed out")
                    : new HttpConnectTimeoutException("connecting timed out");
        }
        if (!connect.isSuccess()) {
            Throwable cause = connect.cause();
            if (cause instanceof ConnectTimeoutException) {
                throw new HttpConnectTimeoutException(cause.getMessage());
            }
            throw cause instanceof IOException io ? io : new IOException(cause.toString(), cause);
        }
        Channel channel = connect.channel();
        channel.writeAndFlush(newRequest(request)).addListener((ChannelFutureListener) written -> {
            if (!written.isSuccess()) {
                handler.fail(written.cause());
                written.channel().close();
            }
        });
        handler.demand();
        long left = request.headTimeout().toNanos() - (System.nanoTime() - started);
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

    private void pipeline(Channel channel, TransferRequest request, TransferHandler handler) {
        ChannelPipeline pipeline = channel.pipeline();
        TransferRequest.Proxy proxy = request.proxy();
        if (proxy != null && request.secure()) {
            HttpProxyHandler tunnel = proxy.username() == null
                    ? new HttpProxyHandler(proxy.address())
                    : new HttpProxyHandler(proxy.address(), proxy.username(), proxy.password());
            // The request's own head timeout bounds the tunnel, as it bounds TLS: one deadline, one error.
            tunnel.setConnectTimeoutMillis(0);
            pipeline.addLast(tunnel);
        }
        if (request.secure()) {
            SslHandler ssl = tls.newHandler(channel.alloc(), request.host(), request.port());
            ssl.setHandshakeTimeoutMillis(0);
            pipeline.addLast(ssl);
        }
        pipeline.addLast(new HttpClientCodec(MAX_INITIAL_LINE, MAX_HEADERS, MAX_CHUNK));
        pipeline.addLast(handler);
    }

    /** The GET: origin-form, or absolute-form to a proxy for plain http; one request, then the connection closes. */
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
        get.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
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
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
