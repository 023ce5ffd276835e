package io.providermirror.server.http;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Aggregates requests up to a small limit (mirror requests have no body) and answers a larger one with a
 * JSON 413 instead of Netty's empty one, then closes the connection, since the rest of the body is unread.
 * Requests to the operator API ({@link OperatorRoutes#PREFIX}) pass unaggregated: an imported bundle streams to
 * disk in {@link OperatorApiHandler}, which bounds it itself.
 */
final class BoundedRequestAggregator extends HttpObjectAggregator {

    private final int limit;

    BoundedRequestAggregator(int limit) {
        super(limit);
        this.limit = limit;
    }

    /** The parts of an operator API request are passing through, up to its last content. */
    private boolean passing;

    @Override
    public boolean acceptInboundMessage(Object msg) throws Exception {
        if (msg instanceof HttpRequest request
                && !(msg instanceof FullHttpRequest)
                && OperatorRoutes.isOperatorPath(request.uri())) {
            passing = true;
            return false;
        }
        if (passing && msg instanceof HttpContent) {
            passing = !(msg instanceof LastHttpContent);
            return false;
        }
        return super.acceptInboundMessage(msg);
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
