package io.providermirror.server.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.util.NettyRuntime;
import io.providermirror.server.tls.PemFiles;
import io.providermirror.server.tls.ServerIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The least any HTTPS server on the mirror's engine does for an answer: the mirror's transport (epoll, OpenSSL),
 * its TLS context (made by {@link MirrorServer#serverTls}, as the listeners' is), its HTTP codec and one event loop
 * per core, and a handler that writes a prepared answer from memory. No routing, no limits, no access log, no
 * metrics. {@code bench/compare.sh} runs it beside the mirror and nginx ({@code FLOOR=1}), so a warm path's CPU per
 * request can be split into what the engine costs and what the mirror adds to it. Not a server for anything but
 * that measurement.
 *
 * <p>Serves every file of at most {@value #MAX_FILE_BYTES} bytes under a static tree (the one nginx serves) at its
 * path, and each {@code location = PATH { add_header NAME "VALUE" always; return 204; }} of an nginx locations file
 * (the module download, as {@code bench/lib.sh} writes it) as a {@code 204} with those headers. A larger file is
 * left out: written whole, its TLS records would take direct memory for all of it on every connection at once (the
 * mirror streams archives instead), so {@code compare.sh} measures no floor for its 50 MB archive.
 *
 * <pre>java -cp mirror-bench/target/benchmarks.jar io.providermirror.server.http.FloorServer \
 *     PORT CERT.pem KEY.pem TREE [LOCATIONS]</pre>
 */
public final class FloorServer {

    static final int MAX_FILE_BYTES = 1 << 20;

    private static final Pattern LOCATION = Pattern.compile("location = (\\S+) \\{([^}]*)}");
    private static final Pattern ADD_HEADER = Pattern.compile("add_header (\\S+) \"([^\"]*)\" always;");

    private FloorServer() {}

    /** Starts the server and blocks until the process is stopped. */
    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: FloorServer PORT CERT.pem KEY.pem TREE [LOCATIONS]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        Map<String, FullHttpResponse> answers = files(Path.of(args[3]));
        if (args.length > 4) {
            answers.putAll(locations(Files.readString(Path.of(args[4]))));
        }
        NettyTransport transport = NettyTransport.choose(true);
        SslContext tls = MirrorServer.serverTls(
                transport,
                new ServerIdentity(
                        PemFiles.readCertificates(Path.of(args[1])),
                        PemFiles.readPrivateKey(Path.of(args[2])),
                        Optional.empty()));
        EventLoopGroup boss = transport.newGroup(1);
        EventLoopGroup workers = transport.newGroup(NettyRuntime.availableProcessors());
        new ServerBootstrap()
                .group(boss, workers)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline()
                                .addLast(tls.newHandler(channel.alloc()))
                                .addLast(new HttpServerCodec(
                                        MirrorChannelInitializer.MAX_INITIAL_LINE,
                                        MirrorChannelInitializer.MAX_HEADER_BYTES,
                                        8192))
                                .addLast(new Answers(answers));
                    }
                })
                .bind("127.0.0.1", port)
                .sync();
        System.out.println("floor: " + answers.size() + " answers on 127.0.0.1:" + port + ", " + transport.describe());
        Thread.currentThread().join();
    }

    private static Map<String, FullHttpResponse> files(Path tree) throws IOException {
        Map<String, FullHttpResponse> answers = new HashMap<>();
        try (Stream<Path> paths = Files.walk(tree)) {
            for (Path file : (Iterable<Path>) paths::iterator) {
                if (!Files.isRegularFile(file) || Files.size(file) > MAX_FILE_BYTES) {
                    continue;
                }
                FullHttpResponse answer = new DefaultFullHttpResponse(
                        HttpVersion.HTTP_1_1,
                        HttpResponseStatus.OK,
                        Unpooled.unreleasableBuffer(Unpooled.directBuffer().writeBytes(Files.readAllBytes(file))));
                answer.headers()
                        .set(HttpHeaderNames.CONTENT_TYPE, contentType(file))
                        .set(HttpHeaderNames.CONTENT_LENGTH, answer.content().readableBytes());
                answers.put("/" + tree.relativize(file).toString().replace('\\', '/'), answer);
            }
        }
        return answers;
    }

    static Map<String, FullHttpResponse> locations(String text) {
        Map<String, FullHttpResponse> answers = new HashMap<>();
        Matcher location = LOCATION.matcher(text);
        while (location.find()) {
            FullHttpResponse answer = new DefaultFullHttpResponse(
                    HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT, Unpooled.EMPTY_BUFFER);
            Matcher header = ADD_HEADER.matcher(location.group(2));
            while (header.find()) {
                answer.headers().add(header.group(1), header.group(2));
            }
            answers.put(location.group(1), answer);
        }
        return answers;
    }

    private static String contentType(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".json") || !name.contains(".")) {
            return "application/json";
        }
        return name.endsWith(".zip") ? "application/zip" : "application/octet-stream";
    }

    /** Answers each request with its prepared answer (a copy of its headers, the same bytes), or a {@code 404}. */
    private static final class Answers extends SimpleChannelInboundHandler<HttpObject> {

        private final Map<String, FullHttpResponse> answers;

        Answers(Map<String, FullHttpResponse> answers) {
            this.answers = answers;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject message) {
            if (!(message instanceof HttpRequest request)) {
                return;
            }
            FullHttpResponse prepared = answers.get(request.uri());
            FullHttpResponse answer;
            if (prepared == null) {
                answer = new DefaultFullHttpResponse(
                        HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_FOUND, Unpooled.EMPTY_BUFFER);
                answer.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
            } else {
                ByteBuf content = prepared.content().duplicate();
                answer = new DefaultFullHttpResponse(
                        HttpVersion.HTTP_1_1,
                        prepared.status(),
                        content,
                        prepared.headers().copy(),
                        prepared.trailingHeaders());
            }
            if (HttpUtil.isKeepAlive(request)) {
                ctx.writeAndFlush(answer);
            } else {
                ctx.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE);
            }
        }
    }
}
