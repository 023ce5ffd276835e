package io.providermirror.server.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpContentException;

/**
 * Aggregates requests up to a small limit (mirror requests have no body). Two kinds pass on unaggregated, to
 * {@link OperatorApiHandler}: requests to the operator API ({@link OperatorRoutes#PREFIX}), whose imported bundle
 * streams to disk there, bounded there; and a request found larger than the limit, whose head passes on marked
 * {@linkplain #isTooLarge too large} followed by what is left of its body, to be refused with a 413 while
 * {@link ConnectionDiscipline} reads and drops that rest before it closes, as for any refusal of a request whose
 * body is still coming (closing at once would reset the connection under a client still sending, and the client
 * could lose the 413).
 */
final class BoundedRequestAggregator extends HttpObjectAggregator {

    private final int limit;

    /** The parts of an unaggregated request are passing through, up to its last content. */
    private boolean passing;

    BoundedRequestAggregator(int limit) {
        // Netty's own refusal of an expectation is never made (newContinueResponse never answers one).
        super(limit, true);
        this.limit = limit;
    }

    /** Whether {@code request} is the head of a request that was too large to aggregate. */
    static boolean isTooLarge(HttpRequest request) {
        return request.decoderResult().cause() instanceof TooLongHttpContentException;
    }

    /** The 417's reason, for a request that {@link #expectsWhatCannotBeMet}. */
    static final String UNMET_EXPECTATION =
            "the mirror meets no expectation but 100-continue: a request's Expect header may only ask for that";

    /**
     * Whether {@code request} (HTTP/1.1 or later) expects anything but {@code 100-continue}, in any value of any of
     * its {@code Expect} headers: the mirror refuses it with a 417 ({@link MirrorHttpHandler}), in its turn among
     * the connection's requests, and closes the connection, reading nothing after it as a request; the operator
     * API ({@link OperatorApiHandler}) refuses it as well, before its body is read.
     */
    static boolean expectsWhatCannotBeMet(HttpMessage request) {
        if (request.protocolVersion().compareTo(HttpVersion.HTTP_1_1) < 0) {
            return false;
        }
        for (String header : request.headers().getAll(HttpHeaderNames.EXPECT)) {
            for (String value : header.split(",", -1)) {
                if (!HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(value.strip())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether {@code request} (HTTP/1.1 or later) expects {@code 100 Continue}: it has an {@code Expect} header and
     * every value of every one is {@code 100-continue}, however many (Netty's {@code HttpUtil.is100ContinueExpected}
     * compares a header's whole value, so {@code 100-continue, 100-continue} is no expectation to it).
     */
    static boolean expectsContinue(HttpMessage request) {
        return request.protocolVersion().compareTo(HttpVersion.HTTP_1_1) >= 0
                && request.headers().contains(HttpHeaderNames.EXPECT)
                && !expectsWhatCannotBeMet(request);
    }

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

    /**
     * A request that {@linkplain #expectsContinue expects} {@code 100 Continue} gets one when it is within the limit,
     * in its turn ({@link ContinueResponse#inTurn}: after the answers owed to the requests before it, and
     * never behind the connection's last request); over the limit, none: it is refused as any request over the limit
     * is. A request that expects anything else gets neither: it is read whole and passes on to be refused in its turn.
     * Netty's own answers are never made: an empty 413 or 417 written at once, ahead of the answers still due to
     * requests before it, after which its codec read the body as the next request, which went on to be answered (its
     * check compares a header's whole value, so {@code 100-continue, 100-continue} got its 417).
     */
    @Override
    protected Object newContinueResponse(HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
        if (expectsContinue(start) && !isContentLengthInvalid(start, maxContentLength)) {
            ContinueResponse.inTurn(pipeline, false);
        }
        return null;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        // The aggregate is released when this returns: its head passes on as a copy, with what the body had.
        HttpRequest request = (HttpRequest) oversized;
        HttpRequest head = new DefaultHttpRequest(
                request.protocolVersion(),
                request.method(),
                request.uri(),
                request.headers().copy());
        head.setDecoderResult(DecoderResult.failure(new TooLongHttpContentException(
                "request bodies are limited to " + limit + " bytes; mirror requests have no body")));
        // Found too large at its head (a Content-Length over the limit) or at a chunk of a chunked body, whose last
        // part, the terminating chunk, carries no data: either way the body's end is still to come.
        passing = true;
        ctx.fireChannelRead(head);
    }
}
