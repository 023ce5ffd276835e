package io.providermirror.upstream.transfer;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.util.concurrent.ThreadFactory;

/**
 * The I/O machinery of the client, chosen as the server chooses its own: Linux's epoll and OpenSSL (BoringSSL,
 * shipped inside the jar) when they load and are wanted, else Java NIO and the JDK's TLS, each half on its own.
 *
 * @param epoll   whether the epoll transport is used
 * @param openSsl whether TLS is done by OpenSSL
 * @param reason  why a native part is not used, or empty
 */
record TransferTransport(boolean epoll, boolean openSsl, String reason) {

    /** The fastest transport this machine offers, or Java's own when {@code wantNative} is false. */
    static TransferTransport choose(boolean wantNative) {
        if (!wantNative) {
            return new TransferTransport(false, false, "server.nativeTransport is false");
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
        return new TransferTransport(epoll, openSsl, reason.toString());
    }

    EventLoopGroup newGroup(int threads, ThreadFactory threadFactory) {
        return epoll ? new EpollEventLoopGroup(threads, threadFactory) : new NioEventLoopGroup(threads, threadFactory);
    }

    Class<? extends SocketChannel> channel() {
        return epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    SslProvider sslProvider() {
        return openSsl ? SslProvider.OPENSSL : SslProvider.JDK;
    }

    /** For the log: e.g. {@code epoll, TLS by BoringSSL}. */
    String describe() {
        return (epoll ? "epoll" : "Java NIO") + ", TLS by " + (openSsl ? OpenSsl.versionString() : "the JDK")
                + (reason.isEmpty() ? "" : " (" + reason + ")");
    }
}
