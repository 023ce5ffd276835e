package io.providermirror.server.http;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;

/**
 * Aggregates requests up to a small limit (mirror requests have no body) and answers a larger one with a
 * JSON 413 instead of Netty's empty one, then closes the connection, since the rest of the body is unread.
 */
final class BoundedRequestAggregator extends HttpObjectAggregator {

    private final int limit;

    BoundedRequestAggregator(int limit) {
        super(limit);
        this.limit = limit;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        var response = JsonErrors.response(
                HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                "request bodies are limited to " + limit + " bytes; mirror requests have no body",
                false);
        HttpUtil.setKeepAlive(response, false);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
