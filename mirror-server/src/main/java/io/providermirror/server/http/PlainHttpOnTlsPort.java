package io.providermirror.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.OptionalSslHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;

/**
 * The first bytes of a connection to the HTTPS port decide: a TLS record gets the TLS handler, anything else
 * (a client that spoke plain {@code http://}) gets a short {@code 400} saying to use {@code https://}, as nginx
 * answers, instead of a dropped connection and a stack trace.
 */
final class PlainHttpOnTlsPort extends OptionalSslHandler {

    static final String ANSWER = "This is the HTTPS port of provider-mirror: use an https:// URL.\n";

    PlainHttpOnTlsPort(SslContext sslContext) {
        super(sslContext);
    }

    @Override
    protected String newSslHandlerName() {
        return "tls";
    }

    @Override
    protected ChannelHandler newNonSslHandler(ChannelHandlerContext ctx) {
        return new Refusal();
    }

    /** Answers the plain request once, then closes. */
    private static final class Refusal extends ChannelInboundHandlerAdapter {

        private boolean answered;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
            if (answered) {
                return;
            }
            answered = true;
            byte[] body = ANSWER.getBytes(StandardCharsets.US_ASCII);
            ByteBuf response = Unpooled.copiedBuffer(
                    ("HTTP/1.1 400 Bad Request\r\n"
                                    + "Content-Type: text/plain; charset=utf-8\r\n"
                                    + "Content-Length: " + body.length + "\r\n"
                                    + "Connection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII),
                    body);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
