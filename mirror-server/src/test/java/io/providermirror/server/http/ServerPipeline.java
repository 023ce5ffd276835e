package io.providermirror.server.http;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.providermirror.server.metrics.MirrorMetrics;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The server's HTTP handlers in their order (codec, access log, aggregator, discipline) on an embedded channel, fed
 * raw bytes, in front of a handler that records each request it is handed and, as the mirror does while it answers,
 * stops reading until the test answers it; one to the operator API that expects {@code 100 Continue} is taken, as an
 * import is.
 */
final class ServerPipeline implements AutoCloseable {

    /** The requests handed on to the handler behind the discipline, by URI, in order. */
    final List<String> seen = new ArrayList<>();

    private final StringBuilder written = new StringBuilder();
    private ChannelHandlerContext handler;
    final EmbeddedChannel channel;

    /** A request was handed on and not answered yet (as {@code MirrorHttpHandler}'s own). */
    private boolean busy;

    ServerPipeline() {
        this(new ChannelHandler[0]);
    }

    /** With {@code socket} (handlers standing for the socket, as one that holds writes) ahead of the codec. */
    ServerPipeline(ChannelHandler... socket) {
        this(socket, new ChannelHandler[0]);
    }

    /** With {@code handlers} between the discipline and the recording handler (as the operator API sits there). */
    static ServerPipeline behindTheDiscipline(ChannelHandler... handlers) {
        return new ServerPipeline(new ChannelHandler[0], handlers);
    }

    private ServerPipeline(ChannelHandler[] socket, ChannelHandler[] behindTheDiscipline) {
        channel = new EmbeddedChannel(socket);
        channel.pipeline()
                .addLast(
                        new HttpServerCodec(4096, 8192, 8192),
                        new ExchangeLog(new MirrorMetrics(new SimpleMeterRegistry(), Clock.systemUTC())),
                        new BoundedRequestAggregator(8 * 1024),
                        new ConnectionDiscipline(
                                new ConnectionLimits(Duration.ofMinutes(1), Duration.ofMinutes(1), 10)))
                .addLast(behindTheDiscipline)
                .addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void handlerAdded(ChannelHandlerContext ctx) {
                        handler = ctx;
                    }

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        if (msg instanceof HttpRequest request) {
                            seen.add(request.uri());
                            busy = true;
                            ctx.channel().config().setAutoRead(false);
                            if (OperatorRoutes.isOperatorPath(request.uri())
                                    && BoundedRequestAggregator.expectsContinue(request)) {
                                // Taken, as the operator API takes an import.
                                ContinueResponse.inTurn(ctx.pipeline(), true);
                            }
                        }
                        ReferenceCountUtil.release(msg);
                    }

                    @Override
                    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                        // As MirrorHttpHandler: reading follows its own request and the socket.
                        ctx.channel()
                                .config()
                                .setAutoRead(!busy && ctx.channel().isWritable());
                    }
                });
    }

    /** The client sends {@code text}. */
    void send(String text) {
        channel.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1));
        collect();
    }

    /** The handler answers the request it is on with {@code status}, and reads again. */
    void answer(HttpResponseStatus status, boolean keepAlive) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        HttpUtil.setKeepAlive(response, keepAlive);
        handler.writeAndFlush(response);
        busy = false;
        channel.config().setAutoRead(true);
        channel.runPendingTasks();
        collect();
    }

    /**
     * The handler starts answering the request it is on with a body of {@code length} bytes, writes {@code first} of
     * them, and reads on while the rest is to come (as the mirror does while an archive streams).
     */
    void startStreaming(int length, String first) {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, length);
        handler.write(head);
        handler.writeAndFlush(new DefaultHttpContent(Unpooled.copiedBuffer(first, StandardCharsets.ISO_8859_1)));
        channel.config().setAutoRead(true);
        channel.runPendingTasks();
        collect();
    }

    /** The handler writes the last part of the answer it is streaming. */
    void endStreaming(String last) {
        handler.writeAndFlush(new DefaultLastHttpContent(Unpooled.copiedBuffer(last, StandardCharsets.ISO_8859_1)));
        collect();
    }

    /** Everything the server wrote to the client so far. */
    String written() {
        collect();
        return written.toString();
    }

    private void collect() {
        for (Object out; (out = channel.readOutbound()) != null; ) {
            written.append(((ByteBuf) out).toString(StandardCharsets.ISO_8859_1));
            ReferenceCountUtil.release(out);
        }
    }

    @Override
    public void close() {
        try {
            channel.finishAndReleaseAll();
        } catch (PrematureChannelClosureException cutShort) {
            // The aggregator's, for a request whose body had not ended when the connection did.
        }
    }
}
