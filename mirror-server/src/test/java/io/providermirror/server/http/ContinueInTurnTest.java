package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.List;
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

    private static final String IMPORT_HEAD =
            "POST /api/v1/imports HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n";

    /**
     * The client pipelines an import (its body sent without waiting, as curl does after a second) and a request that
     * waits for its 100, behind a request whose answer is still being written while the mirror reads on. The import,
     * handed on from the discipline's queue with its body read already, owed a 100 of its own in the connection's one
     * slot, in place of the one owed to the request behind it, which never got it (from a review).
     */
    @Test
    void aRequestBehindAnImportWhoseBodyCameStillGetsItsContinue() {
        try (ServerPipeline pipeline = new ServerPipeline()) {
            pipeline.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n");
            pipeline.send(IMPORT_HEAD + "abcde" + EXPECTING);
            pipeline.channel.config().setAutoRead(true);
            assertThat(pipeline.seen).containsExactly("/first", "/api/v1/imports");

            pipeline.answer(HttpResponseStatus.OK, true);
            pipeline.answer(HttpResponseStatus.OK, true);
            String written = pipeline.written();
            assertThat(written)
                    .as("/expecting waits in the aggregator for its 100: " + written.replace("\r\n", "\\r\\n"))
                    .endsWith("HTTP/1.1 100 Continue\r\n\r\n");
            pipeline.send("abcde");
            assertThat(pipeline.seen).containsExactly("/first", "/api/v1/imports", "/expecting");
        }
    }

    /**
     * No 1xx follows the final answer of the request it was owed to (RFC 9110, section 15.2): an import handed on
     * from the queue with its body read owes none; nor does one handed on at once whose body came, and which was
     * answered, while the answer before it was still being written (the socket holding it).
     */
    @Test
    void noContinueFollowsTheAnswerOfTheRequestItWasOwedTo() {
        try (ServerPipeline pipeline = new ServerPipeline()) {
            pipeline.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n");
            pipeline.send(IMPORT_HEAD + "abcde" + "GET /third HTTP/1.1\r\nHost: x\r\n\r\n");
            pipeline.answer(HttpResponseStatus.OK, true);
            assertThat(pipeline.seen).containsExactly("/first", "/api/v1/imports");
            pipeline.answer(HttpResponseStatus.CREATED, true);

            assertThat(afterTheImportsAnswer(pipeline.written())).doesNotContain("100 Continue");
        }
        HeldWrites socket = new HeldWrites();
        try (ServerPipeline pipeline = new ServerPipeline(socket)) {
            pipeline.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n");
            socket.holding = true;
            pipeline.answer(HttpResponseStatus.OK, true);
            pipeline.send(IMPORT_HEAD + "abcde");
            pipeline.answer(HttpResponseStatus.CREATED, true);
            socket.release();

            assertThat(pipeline.seen).containsExactly("/first", "/api/v1/imports");
            assertThat(afterTheImportsAnswer(pipeline.written())).doesNotContain("100 Continue");
        }
    }

    private static String afterTheImportsAnswer(String written) {
        int answer = written.indexOf("HTTP/1.1 201 Created\r\n");
        assertThat(answer).as(written.replace("\r\n", "\\r\\n")).isPositive();
        return written.substring(answer);
    }

    /** The socket: while holding, what is written waits (its promises not complete), in order. */
    private static final class HeldWrites extends ChannelOutboundHandlerAdapter {
        boolean holding;
        private ChannelHandlerContext ctx;
        private final List<Object> messages = new ArrayList<>();
        private final List<ChannelPromise> promises = new ArrayList<>();

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (holding) {
                messages.add(msg);
                promises.add(promise);
            } else {
                ctx.write(msg, promise);
            }
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            if (!holding) {
                ctx.flush();
            }
        }

        /** Writes what it held, and holds nothing from now on. */
        void release() {
            holding = false;
            for (int i = 0; i < messages.size(); i++) {
                ctx.write(messages.get(i), promises.get(i));
            }
            messages.clear();
            promises.clear();
            ctx.flush();
        }
    }
}
