package io.providermirror.server.http;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.providermirror.server.ProviderMirror;
import java.util.concurrent.TimeUnit;

/** Builds each connection's pipeline, and nothing else. */
final class MirrorChannelInitializer extends ChannelInitializer<SocketChannel> {

    /** Requests here carry no body; anything bigger than this is refused. */
    static final int MAX_REQUEST_BYTES = 8 * 1024;
    static final int MAX_INITIAL_LINE = 4096;
    static final int MAX_HEADER_BYTES = 8 * 1024;

    private final SslContext sslContext;
    private final ProviderMirror mirror;
    private final HomePage homePage;
    private final ConnectionLimits limits;

    MirrorChannelInitializer(SslContext sslContext, ProviderMirror mirror, HomePage homePage, ConnectionLimits limits) {
        this.sslContext = sslContext;
        this.mirror = mirror;
        this.homePage = homePage;
        this.limits = limits;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        ChannelPipeline pipeline = channel.pipeline();
        if (sslContext != null) {
            pipeline.addLast("tls", sslContext.newHandler(channel.alloc()));
        }
        pipeline.addLast("http", new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADER_BYTES, 8192));
        pipeline.addLast("request-deadline", new RequestReadDeadline(limits.requestReadTimeout()));
        pipeline.addLast("keep-alive", new HttpServerKeepAliveHandler());
        pipeline.addLast("aggregator", new BoundedRequestAggregator(MAX_REQUEST_BYTES));
        // The codec decodes every pipelined request in a read at once; this hands them on one per read(), so
        // the handler (which stops reading while it answers) sees the next only when it asks for it.
        pipeline.addLast("one-at-a-time", new FlowControlHandler());
        pipeline.addLast("chunked", new ChunkedWriteHandler());
        pipeline.addLast("idle", new IdleStateHandler(0, 0, limits.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
        pipeline.addLast("mirror", new MirrorHttpHandler(mirror, homePage));
    }
}
