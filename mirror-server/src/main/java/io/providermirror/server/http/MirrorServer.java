package io.providermirror.server.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.providermirror.server.ProviderMirror;
import io.providermirror.server.tls.ServerIdentity;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/** The HTTPS listener: binds, and closes. */
public final class MirrorServer implements AutoCloseable {

    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel channel;

    private MirrorServer(EventLoopGroup boss, EventLoopGroup workers, Channel channel) {
        this.boss = boss;
        this.workers = workers;
        this.channel = channel;
    }

    /**
     * Binds the listener.
     *
     * @param identity          the TLS identity to present
     * @param fallbackAuthority the {@code host:port} to show on the home page when a request's Host header is unusable
     */
    public static MirrorServer bind(String host, int port, ServerIdentity identity, ProviderMirror mirror,
                                    String fallbackAuthority, ConnectionLimits limits)
            throws InterruptedException, SSLException {
        SslContext sslContext = SslContextBuilder
                .forServer(identity.privateKey(), identity.chain().toArray(X509Certificate[]::new))
                .sslProvider(SslProvider.JDK)
                .build();
        EventLoopGroup boss = new NioEventLoopGroup(1);
        EventLoopGroup workers = new NioEventLoopGroup();
        try {
            Channel channel = new ServerBootstrap()
                    .group(boss, workers)
                    .channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childHandler(new MirrorChannelInitializer(sslContext, mirror, new HomePage(fallbackAuthority), limits))
                    .bind(host, port)
                    .sync()
                    .channel();
            return new MirrorServer(boss, workers, channel);
        } catch (Throwable e) {
            // Also a bind failure, which Netty rethrows undeclared.
            boss.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** The port actually bound (useful with port 0). */
    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    /** Waits until the listener is closed. */
    public void awaitClose() throws InterruptedException {
        channel.closeFuture().sync();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
