package io.providermirror.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.ReferenceCountUtil;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.app.MirrorWiring;
import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.server.core.ArchiveSource;
import io.providermirror.server.status.Operations;
import io.providermirror.server.status.StatusPage;
import io.providermirror.testkit.FakeOrigin;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

/**
 * The mirror's HTTP handler on an {@link EmbeddedChannel} (no socket, no TLS) over a real core whose
 * {@code example.test} origin is a {@link FakeOrigin}. Tests warm what they ask for through the core first, so
 * the handler answers on the calling thread, as it does for a warm cache: the embedded event loop is not
 * meant to be handed tasks from other threads.
 */
final class EmbeddedMirror implements AutoCloseable {

    static final String HOST = "example.test";
    private static final ObjectMapper JSON = new ObjectMapper();

    final FakeOrigin origin;
    final MirrorWiring core;
    private final PrometheusMeterRegistry registry;
    private final HttpServices services;
    private final List<EmbeddedChannel> connections = new CopyOnWriteArrayList<>();
    private final RouteCache routes = new RouteCache();
    private final RegistryDownloadDocuments downloads;

    private EmbeddedMirror(
            FakeOrigin origin, MirrorWiring core, PrometheusMeterRegistry registry, HttpServices services) {
        this.origin = origin;
        this.core = core;
        this.registry = registry;
        this.services = services;
        this.downloads = new RegistryDownloadDocuments(services.auth());
    }

    /** A core over {@code directory}/cache; {@code settings} adds configuration keys, dotted or nested. */
    static EmbeddedMirror start(Path directory, Map<String, Object> settings) throws IOException, ConfigException {
        FakeOrigin origin = FakeOrigin.start(directory.resolve("origin"));
        ObjectNode config = JSON.createObjectNode();
        config.putObject("cache").put("directory", directory.resolve("cache").toString());
        ObjectNode upstream = config.putObject("upstream")
                .put("trustedCertificates", origin.caCertificate().toString())
                .put("connectTimeout", "2s")
                .put("requestTimeout", "3s")
                .put("readTimeout", "2s");
        upstream.putObject("hosts")
                .putObject(HOST)
                .put("discoveryUrl", origin.discoveryUrl().toString());
        settings.forEach((key, value) -> set(config, key, JSON.valueToTree(value)));
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MirrorWiring core = MirrorWiring.open(
                new ConfigLoader(Map.of()).loadText(config.toString()),
                Clock.systemUTC(),
                false,
                UnaryOperator.identity(),
                registry);
        StatusPage statusPage = new StatusPage(
                new io.providermirror.server.report.StatusReports(
                        core.blobs(),
                        core.metrics(),
                        core.mirror(),
                        core.modules(),
                        Map.of(),
                        Clock.systemUTC(),
                        core.auth().sightings(),
                        core.inventory(),
                        () -> io.providermirror.server.report.PolicyStatus.NONE),
                java.util.Set.of(),
                java.util.Set.of(),
                null,
                "localhost:8443",
                Clock.systemUTC(),
                null);
        HttpServices services = new HttpServices(
                core.mirror(),
                statusPage,
                new Operations(registry, directory.resolve("cache").resolve("tmp")),
                core.metrics(),
                core.auth(),
                new Manual(Map.of("", "docs".getBytes(StandardCharsets.UTF_8))),
                core.executor(),
                core.modules(),
                core.networkMirror(),
                core.registry(),
                OperatorApi.OFF,
                null,
                core.inventory());
        return new EmbeddedMirror(origin, core, registry, services);
    }

    private static void set(ObjectNode config, String dottedKey, JsonNode value) {
        String[] parts = dottedKey.split("\\.");
        ObjectNode node = config;
        for (int i = 0; i < parts.length - 1; i++) {
            node = node.get(parts[i]) instanceof ObjectNode child ? child : node.putObject(parts[i]);
        }
        node.set(parts[parts.length - 1], value);
    }

    /** A connection as the main listener's pipeline has it, from the connection discipline on. */
    EmbeddedChannel connection() {
        return connection(false);
    }

    EmbeddedChannel connection(boolean managementOnly) {
        EmbeddedChannel channel = new EmbeddedChannel(
                new FileRegionReader(),
                new ConnectionDiscipline(new ConnectionLimits(Duration.ofSeconds(30), Duration.ofSeconds(120), 100)),
                new ChunkedWriteHandler(),
                new MirrorHttpHandler(services, managementOnly, routes, downloads));
        connections.add(channel);
        return channel;
    }

    /** Closes every connection opened so far, releasing what they still hold (call it after each test). */
    void closeConnections() {
        connections.forEach(EmbeddedChannel::finishAndReleaseAll);
        connections.clear();
    }

    /**
     * Reads a file region when it is written, as a socket does: the embedded channel completes the write at once,
     * and the handler then closes the archive the region reads from.
     */
    private static final class FileRegionReader extends ChannelOutboundHandlerAdapter {
        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
            if (!(msg instanceof FileRegion region)) {
                ctx.write(msg, promise);
                return;
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try {
                WritableByteChannel sink = Channels.newChannel(bytes);
                while (region.transferred() < region.count()) {
                    region.transferTo(sink, region.transferred());
                }
            } finally {
                region.release();
            }
            ctx.write(Unpooled.wrappedBuffer(bytes.toByteArray()), promise);
        }
    }

    /** Caches {@code address}'s version list, its version document and the archive for {@code platform}. */
    void warm(ProviderAddress address, ProviderVersion version, Platform platform) throws Exception {
        core.networkMirror().versionIndex(address).join();
        core.networkMirror().versionDocument(address, version, "anonymous").join();
        try (ArchiveSource source =
                core.mirror().archive(address, version, platform).join()) {
            if (source instanceof ArchiveSource.Filling filling) {
                filling.fill().completion().join();
            }
        }
        core.mirror().awaitBackgroundWork(java.time.Duration.ofSeconds(10));
        // The first open of a committed archive checks it on the executor; later ones are the hot path.
        core.mirror().archive(address, version, platform).join().close();
    }

    static FullHttpRequest get(String uri) {
        return request(HttpMethod.GET, uri);
    }

    static FullHttpRequest request(HttpMethod method, String uri) {
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri);
        request.headers().set(HttpHeaderNames.HOST, "mirror.test");
        return request;
    }

    /** A response as the client would read it: its head, and its body put together from whatever was written. */
    record Answer(HttpResponse response, byte[] body) {
        int status() {
            return response.status().code();
        }

        String header(CharSequence name) {
            return response.headers().get(name);
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** The messages of a JSON error answer ({@code {"errors":[...]}}), checked to be one. */
        JsonNode errors() throws IOException {
            return JSON.readTree(body).get("errors");
        }
    }

    /**
     * Sends {@code request} and reads the answer the handler wrote at once, releasing every message; fails when
     * nothing, or no complete answer, was written.
     */
    static Answer exchange(EmbeddedChannel channel, FullHttpRequest request) throws IOException {
        String uri = request.uri();
        channel.writeInbound(request);
        channel.runPendingTasks();
        return written(channel, uri);
    }

    /**
     * Sends {@code request} to a route answered off the event loop (the status page), waits until the handler wrote
     * something, and reads the answer as {@link #exchange} does.
     */
    static Answer exchangeAnsweredLater(EmbeddedChannel channel, FullHttpRequest request) throws IOException {
        String uri = request.uri();
        channel.writeInbound(request);
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(30))
                .until(() -> {
                    channel.runPendingTasks();
                    return !channel.outboundMessages().isEmpty();
                });
        return written(channel, uri);
    }

    /** Reads the complete answer written on {@code channel} to the request for {@code uri}, releasing each message. */
    private static Answer written(EmbeddedChannel channel, String uri) throws IOException {
        HttpResponse head = null;
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (Object message = channel.readOutbound(); message != null; message = channel.readOutbound()) {
            try {
                if (message instanceof HttpResponse response) {
                    head = response;
                }
                if (message instanceof HttpContent content) {
                    ByteBuf bytes = content.content();
                    bytes.readBytes(body, bytes.readableBytes());
                } else if (message instanceof ByteBuf bytes) {
                    bytes.readBytes(body, bytes.readableBytes());
                }
                if (message instanceof LastHttpContent) {
                    return new Answer(head, body.toByteArray());
                }
            } finally {
                ReferenceCountUtil.release(message);
            }
        }
        throw new AssertionError("the handler wrote no complete answer to " + uri
                + (head == null ? "" : " (only " + head.status() + ")"));
    }

    @Override
    public void close() {
        core.close();
        registry.close();
        origin.close();
    }
}
