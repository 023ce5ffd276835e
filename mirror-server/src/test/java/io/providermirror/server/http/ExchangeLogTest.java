package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Which exchanges the access log writes a line for, and with which status, in the server's pipeline: a request the
 * connection discipline drops unread, behind the connection's last one, gets none.
 */
final class ExchangeLogTest {

    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final Logger access = (Logger) LoggerFactory.getLogger("io.providermirror.access");
    private final ServerPipeline pipeline = new ServerPipeline();

    @BeforeEach
    void listen() {
        lines.start();
        access.addAppender(lines);
    }

    @AfterEach
    void stop() {
        pipeline.close();
        access.detachAppender(lines);
    }

    /**
     * Requests waiting behind an answer that ends the connection are never answered nor acted on: they get no line
     * (they were logged as closed by the client, 499, as if the client had given up on them).
     */
    @Test
    void requestsWaitingBehindAnAnswerThatEndsTheConnectionAreNotLogged() {
        pipeline.send(get("/before") + get("/refused") + get("/behind"));
        pipeline.answer(HttpResponseStatus.NOT_FOUND, true);
        pipeline.answer(HttpResponseStatus.EXPECTATION_FAILED, false);

        assertThat(pipeline.channel.isOpen()).isFalse();
        assertThat(pipeline.seen).containsExactly("/before", "/refused");
        assertThat(logged()).containsExactly("GET /before 404", "GET /refused 417");
    }

    /** Nor a request pipelined behind one that asks for close, nor one whose body was still being read then. */
    @Test
    void requestsReadBehindOneThatAsksForCloseAreNotLogged() {
        pipeline.send("GET /closing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" + get("/dropped")
                + "POST /partial HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc");
        pipeline.answer(HttpResponseStatus.NOT_FOUND, true);

        assertThat(pipeline.channel.isOpen()).isFalse();
        assertThat(pipeline.seen).containsExactly("/closing");
        assertThat(logged()).containsExactly("GET /closing 404");
    }

    /** A request the connection ends before any answer to is logged as closed by the client. */
    @Test
    void aRequestUnansweredWhenTheConnectionEndsIsLoggedAsClosedByTheClient() {
        pipeline.send(get("/answered") + get("/waiting") + get("/queued"));
        pipeline.answer(HttpResponseStatus.OK, true);
        pipeline.channel.close();

        assertThat(pipeline.seen).containsExactly("/answered", "/waiting");
        assertThat(logged()).containsExactly("GET /answered 200", "GET /waiting 499", "GET /queued 499");
    }

    private static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n";
    }

    private List<String> logged() {
        return lines.list.stream()
                .map(line -> field(line, "method") + " " + field(line, "path") + " " + field(line, "status"))
                .toList();
    }

    private static Object field(ch.qos.logback.classic.spi.ILoggingEvent line, String key) {
        return line.getKeyValuePairs().stream()
                .filter(pair -> pair.key.equals(key))
                .findFirst()
                .orElseThrow()
                .value;
    }
}
