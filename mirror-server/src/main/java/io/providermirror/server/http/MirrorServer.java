package io.providermirror.server.http;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.netty4.NettyAllocatorMetrics;
import io.micrometer.core.instrument.binder.netty4.NettyEventExecutorMetrics;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.NettyRuntime;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.internal.SystemPropertyUtil;
import io.providermirror.server.tls.ServerIdentity;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners: the mirror's HTTPS listener and, when wanted, a plain-HTTP management listener for scrapers
 * and probes, sharing one set of event loops. Binds, drains gracefully, and closes.
 */
public final class MirrorServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MirrorServer.class);

    /** Where to listen; {@code identity} null means plain HTTP. */
    public record Listener(String host, int port, ServerIdentity identity, String configPrefix) {}

    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel main;
    private final Channel management;
    private final ChannelGroup mainConnections;
    private final ChannelGroup managementConnections;
    private final NettyTransport transport;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    private MirrorServer(
            EventLoopGroup boss,
            EventLoopGroup workers,
            Channel main,
            Channel management,
            ChannelGroup mainConnections,
            ChannelGroup managementConnections,
            NettyTransport transport) {
        this.transport = transport;
        this.boss = boss;
        this.workers = workers;
        this.main = main;
        this.management = management;
        this.mainConnections = mainConnections;
        this.managementConnections = managementConnections;
    }

    /**
     * Binds the listeners.
     *
     * @param management      the management listener, or null for none
     * @param nativeTransport use Linux epoll and OpenSSL when they are available
     */
    public static MirrorServer bind(
            Listener mirror,
            Listener management,
            HttpServices services,
            ConnectionLimits limits,
            MeterRegistry registry,
            boolean nativeTransport)
            throws InterruptedException, java.io.IOException {
        NettyTransport transport = NettyTransport.choose(nativeTransport);
        LOG.info("network: {}", transport.describe());
        EventLoopGroup boss = transport.newGroup(1);
        // One event loop per core (Netty's default is two): nothing blocks them, and more threads than cores only
        // take turns, which shows in the latency tail (io.netty.eventLoopThreads still overrides it).
        EventLoopGroup workers = transport.newGroup(SystemPropertyUtil.getInt(
                "io.netty.eventLoopThreads", Math.max(1, NettyRuntime.availableProcessors())));
        ChannelGroup mainConnections = new DefaultChannelGroup("mirror", GlobalEventExecutor.INSTANCE);
        ChannelGroup managementConnections = new DefaultChannelGroup("management", GlobalEventExecutor.INSTANCE);
        try {
            Channel mainChannel = listen(transport, boss, workers, mirror, services, limits, false, mainConnections);
            Channel managementChannel = management == null
                    ? null
                    : listen(transport, boss, workers, management, services, limits, true, managementConnections);
            new NettyEventExecutorMetrics(workers).bindTo(registry);
            if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider provider) {
                new NettyAllocatorMetrics(provider).bindTo(registry);
            }
            return new MirrorServer(
                    boss, workers, mainChannel, managementChannel, mainConnections, managementConnections, transport);
        } catch (Throwable e) {
            // Also a bind failure, which Netty rethrows undeclared.
            boss.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static Channel listen(
            NettyTransport transport,
            EventLoopGroup boss,
            EventLoopGroup workers,
            Listener listener,
            HttpServices services,
            ConnectionLimits limits,
            boolean managementOnly,
            ChannelGroup connections)
            throws InterruptedException, java.io.IOException {
        SslContext sslContext = listener.identity() == null ? null : serverTls(transport, listener.identity());
        try {
            return new ServerBootstrap()
                    .group(boss, workers)
                    .channel(transport.serverChannel())
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childHandler(new MirrorChannelInitializer(
                            sslContext, trustHint(listener), services, limits, managementOnly, connections))
                    .bind(listener.host(), listener.port())
                    .sync()
                    .channel();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            // Netty rethrows bind failures undeclared, in the words of the native call: say it for people.
            throw new java.net.BindException(cannotListen(listener, e));
        }
    }

    /** The TLS of a listener that presents {@code identity}, done by {@code transport}'s provider. */
    static SslContext serverTls(NettyTransport transport, ServerIdentity identity) throws javax.net.ssl.SSLException {
        return SslContextBuilder.forServer(
                        identity.privateKey(), identity.chain().toArray(X509Certificate[]::new))
                .sslProvider(transport.sslProvider())
                // Netty hands the key to its key manager through an in-memory key store, never written
                // anywhere: the default PKCS#12 would encrypt it and decrypt it again with 10,000 rounds of
                // PBKDF2 each (a tenth of a second of start-up); JKS only obfuscates it, which is all this needs.
                .keyStoreType("JKS")
                // No client certificates are asked for; without a trust manager of its own, Netty would make
                // the JDK's default one, reading every CA the JDK ships, before the first answer.
                .trustManager(new NoClientCertificates())
                .build();
    }

    /**
     * Says whether {@code listener}'s address can be bound now, by binding it and letting it go at once: so a port in
     * use is reported before start-up creates anything (the cache directory, a CA). The bind in {@link #bind} is
     * still the one that counts; a listener on port 0 always can.
     *
     * @throws java.net.BindException in the words of {@link #bind}'s: {@code cannot listen on 0.0.0.0:8443
     *     (server.host, server.port): address already in use}
     */
    public static void checkCanListen(Listener listener) throws java.net.BindException {
        if (listener.port() == 0) {
            return;
        }
        try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
            probe.bind(new java.net.InetSocketAddress(listener.host(), listener.port()), 1);
        } catch (java.io.IOException e) {
            throw new java.net.BindException(cannotListen(listener, e));
        }
    }

    /** What clients must trust to complete a handshake with {@code listener}, for the log. */
    private static String trustHint(Listener listener) {
        return listener.identity() == null
                ? "-"
                : listener.identity()
                        .generatedCa()
                        .map(ca -> ca.toAbsolutePath() + " (this mirror's own CA)")
                        .orElse("the CA that issued server.tls.certificate");
    }

    /** {@code cannot listen on 0.0.0.0:8443 (server.host, server.port): address already in use}. */
    static String cannotListen(Listener listener, Exception failure) {
        String message = failure.getMessage() == null ? failure.toString() : failure.getMessage();
        String reason = message.substring(message.lastIndexOf(':') + 1).strip().toLowerCase(java.util.Locale.ROOT);
        if (reason.contains("cannot assign requested address")) {
            reason += " (" + listener.host() + " is not an address of this machine)";
        } else if (reason.contains("permission denied")) {
            reason += " (ports below 1024 need root or CAP_NET_BIND_SERVICE)";
        }
        return "cannot listen on " + listener.host() + ":" + listener.port() + " (" + listener.configPrefix()
                + ".host, " + listener.configPrefix() + ".port): " + reason;
    }

    /** How the listeners do their I/O and TLS, for the log and the status page. */
    public String transport() {
        return transport.describe();
    }

    /**
     * Loads the native transport and TLS libraries and the pipeline's classes ahead of {@link #bind}, from
     * another thread while start-up does other work.
     */
    public static void preload() {
        NettyTransport.choose(true);
        new io.netty.handler.codec.http.HttpServerCodec();
        io.netty.buffer.ByteBufAllocator.DEFAULT.buffer(1).release();
    }

    /** The mirror listener's port (useful with port 0). */
    public int port() {
        return ((InetSocketAddress) main.localAddress()).getPort();
    }

    /** The management listener's port, when there is one. */
    public OptionalInt managementPort() {
        return management == null
                ? OptionalInt.empty()
                : OptionalInt.of(((InetSocketAddress) management.localAddress()).getPort());
    }

    /** True while the mirror listener accepts connections. */
    public boolean isListening() {
        return main.isActive();
    }

    /** Waits until the mirror listener is closed. */
    public void awaitClose() throws InterruptedException {
        main.closeFuture().sync();
    }

    /**
     * Stops accepting connections, lets every response in progress finish (idle connections close at once,
     * busy ones after their last response) for at most {@code grace}, then closes everything.
     *
     * @return true when every connection finished within the grace period
     */
    public boolean drain(Duration grace) throws InterruptedException {
        main.close().sync();
        for (Channel channel : mainConnections) {
            channel.eventLoop().execute(() -> {
                ExchangeLog log = channel.pipeline().get(ExchangeLog.class);
                if (log == null) {
                    channel.close();
                } else {
                    log.closeWhenIdle(channel.pipeline().context(log));
                }
            });
        }
        boolean finished = mainConnections.newCloseFuture().await(grace.toMillis(), TimeUnit.MILLISECONDS);
        close();
        return finished;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        main.close().syncUninterruptibly();
        if (management != null) {
            management.close().syncUninterruptibly();
        }
        mainConnections.close().syncUninterruptibly();
        managementConnections.close().syncUninterruptibly();
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
