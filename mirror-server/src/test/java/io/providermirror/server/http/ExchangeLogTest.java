package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.providermirror.server.metrics.MirrorMetrics;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Which exchanges the access log writes a line for, and with which status. */
final class ExchangeLogTest {

    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final Logger access = (Logger) LoggerFactory.getLogger("io.providermirror.access");
    private final EmbeddedChannel channel =
            new EmbeddedChannel(new ExchangeLog(new MirrorMetrics(new SimpleMeterRegistry(), Clock.systemUTC())));

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
        read("/before");
        read("/refused");
        read("/behind");
        answer(HttpResponseStatus.NOT_FOUND, true);
        answer(HttpResponseStatus.EXPECTATION_FAILED, false);
        read("/after");
        channel.close();

        assertThat(logged()).containsExactly("GET /before 404", "GET /refused 417");
    }

    /** An answer written behind one that ends the connection (before it closed) is logged as its request's. */
    @Test
    void anAnswerWrittenBehindOneThatEndsTheConnectionIsLoggedAsItsRequests() {
        read("/closing");
        read("/behind");
        answer(HttpResponseStatus.NOT_FOUND, false);
        answer(HttpResponseStatus.NOT_FOUND, false);
        channel.close();

        assertThat(logged()).containsExactly("GET /closing 404", "GET /behind 404");
    }

    /** A request the connection ends before any answer to is logged as closed by the client. */
    @Test
    void aRequestUnansweredWhenTheConnectionEndsIsLoggedAsClosedByTheClient() {
        read("/answered");
        read("/waiting");
        answer(HttpResponseStatus.OK, true);
        channel.close();

        assertThat(logged()).containsExactly("GET /answered 200", "GET /waiting 499");
    }

    private void read(String path) {
        channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path));
        ReferenceCountUtil.release(channel.readInbound());
    }

    private void answer(HttpResponseStatus status, boolean keepAlive) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status);
        HttpUtil.setKeepAlive(response, keepAlive);
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
