package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.HttpResponseStatus;
import org.junit.jupiter.api.Test;

/**
 * A {@code 100 Continue} goes out in its request's turn: after the answers owed to the requests before it, never in
 * the middle of one, never for a request dropped behind the connection's last one. It was written (as bytes, ahead
 * of the encoder and of the discipline) the moment the codec decoded the request's head.
 */
final class ContinueInTurnTest {

    private static final String EXPECTING =
            "POST /expecting HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n";

    /**
     * A keep-alive request is being answered (the mirror answers asynchronously); a request pipelined behind it
     * expects 100-continue. Its 100 goes out before the first request's answer, so the client reads it as an interim
     * answer to the first request (RFC 9110 15.2: answers come in request order) and keeps waiting for the second
     * request's 100 while the server waits for its body: the request that is actually processed misses its 100.
     */
    @Test
    void aContinueIsNotWrittenAheadOfTheAnswersOwedToEarlierRequests() {
        try (ServerPipeline pipeline = new ServerPipeline()) {
            pipeline.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n" + EXPECTING);

            assertThat(pipeline.written())
                    .as("nothing is owed to /expecting before /first is answered")
                    .isEmpty();
        }
    }

    /** Deferred, not lost: the 100 follows the answer owed before it, and the request is then read and handed on. */
    @Test
    void aContinueBehindAnEarlierAnswerFollowsIt() {
        try (ServerPipeline pipeline = new ServerPipeline()) {
            pipeline.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n" + EXPECTING);
            pipeline.answer(HttpResponseStatus.OK, true);

            assertThat(pipeline.written())
                    .startsWith("HTTP/1.1 200 OK\r\n")
                    .endsWith("\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n");
            pipeline.send("abcde");
            assertThat(pipeline.seen).containsExactly("/first", "/expecting");
        }
    }

    /**
     * An import taken while the answer before it is still being written (the mirror reads on while an archive
     * streams), behind an answer that turns out to end the connection: its {@code 100} is owed no more, and is not
     * sent while the mirror reads and drops the import's body before the close. First, a taken import gets its
     * {@code 100} after the answer before it.
     */
    @Test
    void aContinueOwedBehindAnAnswerThatEndsTheConnectionIsNeverSent() {
        String importing =
                "POST /api/v1/imports HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n";
        try (ServerPipeline pipeline = new ServerPipeline()) {
            pipeline.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n");
            pipeline.channel.config().setAutoRead(true);
            pipeline.send(importing);
            assertThat(pipeline.seen).containsExactly("/first", "/api/v1/imports");
            assertThat(pipeline.written()).isEmpty();
            pipeline.answer(HttpResponseStatus.OK, true);
            assertThat(pipeline.written()).endsWith("\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n");
        }
        try (ServerPipeline pipeline = new ServerPipeline()) {
            pipeline.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n");
            pipeline.channel.config().setAutoRead(true);
            pipeline.send(importing);
            pipeline.answer(HttpResponseStatus.OK, false);

            assertThat(pipeline.channel.isOpen())
                    .as("reading the import's body before the close")
                    .isTrue();
            assertThat(pipeline.written()).startsWith("HTTP/1.1 200 OK\r\n").doesNotContain("100 Continue");
            pipeline.send("abcde");
            assertThat(pipeline.channel.isOpen()).isFalse();
        }
    }

    /** A request whose body comes anyway, before its turn, needs no 100 any more: none follows the answer before. */
    @Test
    void aRequestWhoseBodyCameBeforeItsTurnGetsNoContinue() {
        try (ServerPipeline pipeline = new ServerPipeline()) {
            pipeline.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n" + EXPECTING + "abcde");
            pipeline.answer(HttpResponseStatus.OK, true);
            pipeline.answer(HttpResponseStatus.NOT_FOUND, true);

            assertThat(pipeline.seen).containsExactly("/first", "/expecting");
            assertThat(pipeline.written())
                    .startsWith("HTTP/1.1 200 OK\r\n")
                    .contains("HTTP/1.1 404 Not Found\r\n")
                    .doesNotContain("100 Continue");
        }
    }

    /**
     * The answer to the request before it ends the connection (decided by the handler, after the pipelined head was
     * decoded): the pipelined request is dropped unread, and is not asked for its body.
     */
    @Test
    void aRequestDroppedBehindAnAnswerThatEndsTheConnectionWasNotAskedForItsBody() {
        try (ServerPipeline pipeline = new ServerPipeline()) {
            pipeline.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n" + EXPECTING);
            pipeline.answer(HttpResponseStatus.SERVICE_UNAVAILABLE, false);

            assertThat(pipeline.seen).containsExactly("/first");
            assertThat(pipeline.written()).as("/expecting is dropped unread").doesNotContain("100 Continue");
        }
    }

    /**
     * The mirror keeps reading while an archive streams and the socket is writable ({@code MirrorHttpHandler} turns
     * reading on when it is not busy and the channel is writable; {@code ChunkedWriteHandler} writes the rest as the
     * socket drains). A request pipelined then that expects 100-continue got its 100 in the middle of the archive.
     */
    @Test
    void aContinueIsNeverWrittenIntoTheBodyOfAnAnswerBeingStreamed() {
        try (ServerPipeline pipeline = new ServerPipeline()) {
            pipeline.send("GET /archive HTTP/1.1\r\nHost: x\r\n\r\n");
            pipeline.startStreaming(10, "01234");
            // The client pipelines the next request while the archive streams.
            pipeline.send(EXPECTING);
            pipeline.endStreaming("56789");

            String text = pipeline.written();
            int body = text.indexOf("\r\n\r\n") + 4;
            assertThat(text.substring(body, Math.min(text.length(), body + 10)))
                    .as("the archive's body, whole: " + text.replace("\r\n", "\\r\\n"))
                    .isEqualTo("0123456789");
            assertThat(text)
                    .as("its 100, once the answer before it is written")
                    .endsWith("0123456789HTTP/1.1 100 Continue\r\n\r\n");
            assertThat(pipeline.seen).containsExactly("/archive");
        }
    }
}
