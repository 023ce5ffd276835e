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
 * Requests that arrived pipelined and wait their turn count as delivered: the deadline runs only while no
 * request is outstanding.
 */
final class RequestReadDeadline extends ChannelDuplexHandler {

    private final Duration timeout;
    private ScheduledFuture<?> deadline;
    /** Requests whose head arrived and whose response has not been sent yet. */
    private int outstanding;

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
            outstanding++;
            disarm();
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof LastHttpContent) {
            promise = promise.unvoid();
            promise.addListener(done -> {
                outstanding = Math.max(0, outstanding - 1);
                if (done.isSuccess() && ctx.channel().isActive() && outstanding == 0) {
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
        deadline = ctx.executor()
                .schedule(
                        () -> {
                            ctx.close();
                        },
                        timeout.toMillis(),
                        TimeUnit.MILLISECONDS);
    }

    private void disarm() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }
}
