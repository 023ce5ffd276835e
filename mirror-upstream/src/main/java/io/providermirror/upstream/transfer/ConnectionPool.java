package io.providermirror.upstream.transfer;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.pool.AbstractChannelPoolMap;
import io.netty.channel.pool.ChannelHealthChecker;
import io.netty.channel.pool.ChannelPool;
import io.netty.channel.pool.ChannelPoolHandler;
import io.netty.channel.pool.SimpleChannelPool;
import io.netty.handler.proxy.HttpProxyHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client's connections, by {@link ConnectionRoute}: Netty's {@link SimpleChannelPool} per route (in an
 * {@link AbstractChannelPoolMap}), whose idle connections are kept here within the {@link ConnectionReuse} bounds.
 * A new connection is handed out only once it is ready for a request (connected, tunnelled, TLS done); an idle one
 * only if it is still open, and it is watched meanwhile: anything it receives, or its closing, drops it.
 */
final class ConnectionPool implements AutoCloseable {

    /** Pipeline names: the proxy's tunnel, TLS, and the last handler of every connection. */
    static final String TUNNEL = "tunnel";

    static final String TLS = "tls";
    static final String GUARD = "guard";

    /** Set once a connection has carried a request: a failure before its next answer may be its being stale. */
    private static final AttributeKey<Boolean> USED = AttributeKey.valueOf(ConnectionPool.class, "used");

    private static final AttributeKey<ScheduledFuture<?>> IDLE_TIMER =
            AttributeKey.valueOf(ConnectionPool.class, "idleTimer");
    private static final AttributeKey<RoutePool> WATCHED_BY = AttributeKey.valueOf(ConnectionPool.class, "watchedBy");

    private final Bootstrap bootstrap;
    private final SslContext tls;
    private final ConnectionReuse reuse;
    private final Duration setupTimeout;
    /** Idle connections kept, all routes together. */
    private final AtomicInteger idle = new AtomicInteger();

    private final AbstractChannelPoolMap<ConnectionRoute, RoutePool> pools = new AbstractChannelPoolMap<>() {
        @Override
        protected RoutePool newPool(ConnectionRoute route) {
            return new RoutePool(route);
        }
    };

    /**
     * @param bootstrap    group, channel type and options; its remote address and handler are set per route
     * @param setupTimeout the longest a new connection may take to be ready (a handshake never hangs on forever)
     */
    ConnectionPool(Bootstrap bootstrap, SslContext tls, ConnectionReuse reuse, Duration setupTimeout) {
        this.bootstrap = bootstrap;
        this.tls = tls;
        this.reuse = reuse;
        this.setupTimeout = setupTimeout;
    }

    /**
     * The pool of {@code route}'s connections: its {@code acquire} gives an idle one that is still open, or a new one
     * once it is ready; its {@code release} takes back a connection whose last response arrived whole and which has
     * nothing but its own handlers in its pipeline, kept if it is open and the bounds allow, else closed.
     */
    ChannelPool of(ConnectionRoute route) {
        if (!pools.contains(route) && pools.size() >= Math.max(16, 2 * reuse.maxIdle())) {
            forgetRoutesWithoutIdleConnections();
        }
        return pools.get(route);
    }

    /** True when {@code channel} has carried a request before; marks it as carrying one now. */
    static boolean markUsed(Channel channel) {
        return Boolean.TRUE.equals(channel.attr(USED).getAndSet(Boolean.TRUE));
    }

    /** Idle connections kept now, all routes together. */
    int idleCount() {
        return idle.get();
    }

    private void forgetRoutesWithoutIdleConnections() {
        for (Map.Entry<ConnectionRoute, RoutePool> entry : pools) {
            if (entry.getValue().keptCount.get() == 0) {
                pools.remove(entry.getKey());
            }
        }
    }

    /** Closes every idle connection; connections in use close with their request. */
    @Override
    public void close() {
        pools.close();
    }

    /** One route's connections: Netty's pool, its idle connections kept in a bounded deque of its own. */
    private final class RoutePool extends SimpleChannelPool {

        private final Deque<Channel> kept = new ConcurrentLinkedDeque<>();
        private final AtomicInteger keptCount = new AtomicInteger();

        RoutePool(ConnectionRoute route) {
            super(
                    bootstrap.clone().remoteAddress(route.remote()),
                    new Connections(route),
                    ChannelHealthChecker.ACTIVE,
                    true,
                    true);
        }

        @Override
        protected ChannelFuture connectChannel(Bootstrap bs) {
            ChannelFuture connect = bs.connect();
            Channel channel = connect.channel();
            ChannelPromise ready = channel.newPromise();
            connect.addListener((ChannelFutureListener) connected -> {
                if (!connected.isSuccess()) {
                    ready.tryFailure(connected.cause());
                    return;
                }
                ScheduledFuture<?> bound = channel.eventLoop()
                        .schedule(
                                () -> {
                                    if (ready.tryFailure(new HttpTimeoutException("request timed out"))) {
                                        channel.close();
                                    }
                                },
                                setupTimeout.toNanos(),
                                TimeUnit.NANOSECONDS);
                ready.addListener(done -> bound.cancel(false));
                HttpProxyHandler tunnel = (HttpProxyHandler) channel.pipeline().get(TUNNEL);
                if (tunnel == null) {
                    afterTunnel(channel, ready);
                } else {
                    tunnel.connectFuture().addListener(tunnelled -> {
                        if (tunnelled.isSuccess()) {
                            afterTunnel(channel, ready);
                        } else {
                            ready.tryFailure(tunnelled.cause());
                        }
                    });
                }
            });
            ready.addListener((ChannelFutureListener) done -> {
                if (!done.isSuccess()) {
                    channel.close();
                }
            });
            return ready;
        }

        private void afterTunnel(Channel channel, ChannelPromise ready) {
            SslHandler handshake = (SslHandler) channel.pipeline().get(TLS);
            if (handshake == null) {
                ready.trySuccess();
                return;
            }
            handshake.handshakeFuture().addListener(done -> {
                if (done.isSuccess()) {
                    ready.trySuccess();
                } else {
                    ready.tryFailure(done.cause());
                }
            });
        }

        @Override
        protected Channel pollChannel() {
            Channel channel = kept.pollLast();
            if (channel != null) {
                forgotten(channel);
            }
            return channel;
        }

        /** Runs on the connection's event loop (Netty's pool releases there). */
        @Override
        protected boolean offerChannel(Channel channel) {
            // A route's connections may be on different event loops: count first, then check, so that two releases
            // at once cannot both take the last place.
            if (keptCount.incrementAndGet() > reuse.maxIdlePerRoute()) {
                keptCount.decrementAndGet();
                return false;
            }
            if (idle.incrementAndGet() > reuse.maxIdle()) {
                idle.decrementAndGet();
                keptCount.decrementAndGet();
                return false;
            }
            kept.offerLast(channel);
            if (channel.attr(WATCHED_BY).getAndSet(this) != this) {
                channel.closeFuture().addListener(closed -> drop(channel));
            }
            channel.attr(IDLE_TIMER)
                    .set(channel.eventLoop()
                            .schedule(() -> drop(channel), reuse.idleTimeout().toNanos(), TimeUnit.NANOSECONDS));
            // One read outstanding while idle, so that the origin's closing (or anything it sends) is noticed now,
            // not by the next request.
            channel.read();
            return true;
        }

        /** Removes an idle connection (timed out, closed, or sent something unasked) and closes it. */
        private void drop(Channel channel) {
            if (kept.remove(channel)) {
                forgotten(channel);
                channel.close();
            }
        }

        private void forgotten(Channel channel) {
            keptCount.decrementAndGet();
            idle.decrementAndGet();
            ScheduledFuture<?> timer = channel.attr(IDLE_TIMER).getAndSet(null);
            if (timer != null) {
                timer.cancel(false);
            }
        }
    }

    /** Builds each new connection's pipeline: the proxy's tunnel, TLS, and the guard. */
    private final class Connections implements ChannelPoolHandler {

        private final ConnectionRoute route;

        Connections(ConnectionRoute route) {
            this.route = route;
        }

        @Override
        public void channelCreated(Channel channel) {
            ChannelPipeline pipeline = channel.pipeline();
            TransferRequest.Proxy proxy = route.proxy();
            if (route.tunnelled()) {
                HttpProxyHandler tunnel = proxy.username() == null
                        ? new HttpProxyHandler(proxy.address())
                        : new HttpProxyHandler(proxy.address(), proxy.username(), proxy.password());
                // The setup deadline bounds the tunnel, as it bounds TLS: one deadline, one error.
                tunnel.setConnectTimeoutMillis(0);
                pipeline.addLast(TUNNEL, tunnel);
            }
            if (route.secure()) {
                SslHandler handshake = tls.newHandler(channel.alloc(), route.host(), route.port());
                handshake.setHandshakeTimeoutMillis(0);
                pipeline.addLast(TLS, handshake);
            }
            pipeline.addLast(GUARD, Guard.INSTANCE);
        }

        @Override
        public void channelReleased(Channel channel) {
            // Kept or closed by RoutePool.offerChannel.
        }

        @Override
        public void channelAcquired(Channel channel) {
            // Checked open by the health checker.
        }
    }

    /**
     * The last handler of every connection. A request's own handlers sit before it and take everything while it
     * runs; what reaches the guard came when no request was running (set-up, or idle): it is unasked for, so the
     * connection is closed and never reused.
     */
    @ChannelHandler.Sharable
    private static final class Guard extends ChannelInboundHandlerAdapter {

        static final Guard INSTANCE = new Guard();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
            ctx.close();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
