package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.providermirror.server.metrics.MirrorMetrics;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Which exchanges the access log writes a line for, and with which status. */
final class ExchangeLogTest {

    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final Logger access = (Logger) LoggerFactory.getLogger("io.providermirror.access");
    /** The access log in front of the connection discipline, and a handler that answers one request at a time. */
    private final EmbeddedChannel channel = new EmbeddedChannel(
            new ExchangeLog(new MirrorMetrics(new SimpleMeterRegistry(), Clock.systemUTC())),
            new ConnectionDiscipline(new ConnectionLimits(Duration.ofMinutes(1), Duration.ofMinutes(1), 10)),
            new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ReferenceCountUtil.release(msg);
                    ctx.channel().config().setAutoRead(false);
                }
            });

    @BeforeEach
    void listen() {
        lines.start();
        access.addAppender(lines);
    }

    @AfterEach
    void stop() {
        access.detachAppender(lines);
        channel.finishAndReleaseAll();
    }

    /**
     * Requests pipelined behind one whose answer ends the connection are never answered nor acted on: they get no
     * line (they were logged as closed by the client, 499, as if the client had given up on them).
     */
    @Test
    void requestsReadBehindAnAnswerThatEndsTheConnectionAreNotLogged() {
        read("/before", "/refused", "/behind");
        answer(HttpResponseStatus.NOT_FOUND, true);
        channel.read();
        answer(HttpResponseStatus.EXPECTATION_FAILED, false);

        assertThat(channel.isOpen()).isFalse();
        assertThat(logged()).containsExactly("GET /before 404", "GET /refused 417");
    }

    /** An answer written behind one that ends the connection (before it closed) is logged as its request's. */
    @Test
    void anAnswerWrittenBehindOneThatEndsTheConnectionIsLoggedAsItsRequests() {
        EmbeddedChannel alone =
                new EmbeddedChannel(new ExchangeLog(new MirrorMetrics(new SimpleMeterRegistry(), Clock.systemUTC())));
        for (String path : List.of("/closing", "/behind")) {
            alone.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path));
        }
        for (int i = 0; i < 2; i++) {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_FOUND);
            HttpUtil.setKeepAlive(response, false);
            alone.writeOutbound(response);
        }
        alone.close();
        alone.finishAndReleaseAll();

        assertThat(logged()).containsExactly("GET /closing 404", "GET /behind 404");
    }

    /** A request the connection ends before any answer to is logged as closed by the client. */
    @Test
    void aRequestUnansweredWhenTheConnectionEndsIsLoggedAsClosedByTheClient() {
        read("/answered", "/waiting");
        answer(HttpResponseStatus.OK, true);
        channel.close();

        assertThat(logged()).containsExactly("GET /answered 200", "GET /waiting 499");
    }

    private void read(String... paths) {
        for (String path : paths) {
            channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path));
        }
    }

    private void answer(HttpResponseStatus status, boolean keepAlive) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status);
        HttpUtil.setKeepAlive(response, keepAlive);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        channel.writeOutbound(response);
        ReferenceCountUtil.release(channel.readOutbound());
    }

    private List<String> logged() {
        return lines.list.stream()
                .map(line -> line.getArgumentArray()[2] + " " + line.getArgumentArray()[3] + " "
                        + line.getArgumentArray()[4])
                .toList();
    }
}
