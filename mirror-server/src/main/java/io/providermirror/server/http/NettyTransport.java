package io.providermirror.server.http;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;

/**
 * The I/O machinery the listeners run on: Linux's epoll and OpenSSL (BoringSSL, shipped inside the jar) when
 * they load and are wanted, else Java NIO and the JDK's TLS. Both halves fall back on their own, so a machine
 * whose libc refuses one native library still gets the other.
 *
 * @param epoll   whether the epoll transport is used
 * @param openSsl whether TLS is done by OpenSSL
 * @param reason  why a native part is not used, or empty
 */
record NettyTransport(boolean epoll, boolean openSsl, String reason) {

    /** The fastest transport this machine offers, or Java's own when {@code wantNative} is false. */
    static NettyTransport choose(boolean wantNative) {
        if (!wantNative) {
            return new NettyTransport(false, false, "server.nativeTransport is false");
        }
        boolean epoll = Epoll.isAvailable();
        boolean openSsl = OpenSsl.isAvailable();
        StringBuilder reason = new StringBuilder();
        if (!epoll) {
            reason.append("epoll unavailable: ").append(Epoll.unavailabilityCause());
        }
        if (!openSsl) {
            reason.append(reason.length() > 0 ? "; " : "")
                    .append("OpenSSL unavailable: ")
                    .append(OpenSsl.unavailabilityCause());
        }
        return new NettyTransport(epoll, openSsl, reason.toString());
    }

    EventLoopGroup newGroup(int threads) {
        return epoll ? new EpollEventLoopGroup(threads) : new NioEventLoopGroup(threads);
    }

    Class<? extends ServerChannel> serverChannel() {
        return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    SslProvider sslProvider() {
        return openSsl ? SslProvider.OPENSSL : SslProvider.JDK;
    }

    /** For the log: e.g. {@code epoll, TLS by OpenSSL (BoringSSL)}. */
    String describe() {
        return (epoll ? "epoll" : "Java NIO") + ", TLS by " + (openSsl ? OpenSsl.versionString() : "the JDK")
                + (reason.isEmpty() ? "" : " (" + reason + ")");
    }
}
