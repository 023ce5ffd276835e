package io.providermirror.server.http;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.stream.ChunkedWriteHandler;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds each connection's pipeline, once the connection fits the listener's {@code maxConnections}. */
final class MirrorChannelInitializer extends ChannelInitializer<SocketChannel> {

    private static final Logger LOG = LoggerFactory.getLogger(MirrorChannelInitializer.class);

    /** Requests here carry no body; anything bigger than this is refused. */
    static final int MAX_REQUEST_BYTES = 8 * 1024;

    static final int MAX_INITIAL_LINE = 4096;
    static final int MAX_HEADER_BYTES = 8 * 1024;

    private final SslContext sslContext;
    private final HttpServices services;
    private final ConnectionLimits limits;
    private final boolean managementOnly;
    private final ChannelGroup connections;
    private final TlsHandshakeLog.Limiter handshakeFailures;
    /** Connections of this listener open now, for {@link ConnectionLimits#maxConnections()}. */
    private final AtomicInteger open = new AtomicInteger();

    private final RouteCache routes = new RouteCache();
    private final RegistryDownloadDocuments downloads;

    /**
     * @param sslContext     TLS for this listener, or null for plain HTTP
     * @param trustHint      what a client that fails the TLS handshake must trust, for the log line
     * @param managementOnly answer only the operator endpoints
     * @param connections    where every connection is kept, for a graceful shutdown
     */
    MirrorChannelInitializer(
            SslContext sslContext,
            String trustHint,
            HttpServices services,
            ConnectionLimits limits,
            boolean managementOnly,
            ChannelGroup connections) {
        this.handshakeFailures = new TlsHandshakeLog.Limiter(10, java.util.concurrent.TimeUnit.SECONDS, trustHint);
        this.sslContext = sslContext;
        this.services = services;
        this.limits = limits;
        this.managementOnly = managementOnly;
        this.connections = connections;
        this.downloads = new RegistryDownloadDocuments(services.auth());
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        if (open.incrementAndGet() > limits.maxConnections()) {
            open.decrementAndGet();
            // Closed before TLS or HTTP: an answer would cost the handshake the limit is there to save.
            LOG.debug(
                    "refusing a connection from {}: {} connections are open (server.maxConnections)",
                    channel.remoteAddress(),
                    limits.maxConnections());
            services.metrics().refused("connections", null);
            channel.close();
            return;
        }
        channel.closeFuture().addListener(closed -> open.decrementAndGet());
        connections.add(channel);
        ChannelPipeline pipeline = channel.pipeline();
        if (sslContext != null) {
            // Becomes the TLS handler ("tls") on a TLS record; plain HTTP gets a 400 that says to use https://.
            pipeline.addLast("tls-or-plain", new PlainHttpOnTlsPort(sslContext));
            pipeline.addLast("tls-failures", new TlsHandshakeLog(handshakeFailures));
        }
        pipeline.addLast("http", new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADER_BYTES, 8192));
        pipeline.addLast("exchange-log", new ExchangeLog(services.metrics()));
        pipeline.addLast("aggregator", new BoundedRequestAggregator(MAX_REQUEST_BYTES));
        // Request deadline, idle timeout, one request at a time and keep-alive: one handler on every message's path.
        pipeline.addLast("discipline", new ConnectionDiscipline(limits));
        pipeline.addLast("chunked", new ChunkedWriteHandler());
        pipeline.addLast("operator", new OperatorApiHandler(services.operator(), services.executor(), managementOnly));
        pipeline.addLast("mirror", new MirrorHttpHandler(services, managementOnly, routes, downloads));
    }
}
