package io.providermirror.server.http;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Gives a connection a bounded time to deliver each request: from the moment it opens, or its previous
 * response was sent, until a request's head has arrived. A client that trickles bytes (slowloris) or sits
 * idle between requests is closed instead of holding a connection forever. Sits right after the HTTP codec.
 */
final class RequestReadDeadline extends ChannelDuplexHandler {

    private final Duration timeout;
    private ScheduledFuture<?> deadline;

    RequestReadDeadline(Duration timeout) {
        this.timeout = timeout;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        arm(ctx);
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof HttpRequest) {
            disarm();
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof LastHttpContent) {
            promise = promise.unvoid();
            promise.addListener(done -> {
                if (done.isSuccess() && ctx.channel().isActive()) {
                    arm(ctx);
                }
            });
        }
        super.write(ctx, msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        disarm();
        super.channelInactive(ctx);
    }

    private void arm(ChannelHandlerContext ctx) {
        disarm();
        deadline = ctx.executor().schedule(() -> {
            ctx.close();
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void disarm() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }
}
