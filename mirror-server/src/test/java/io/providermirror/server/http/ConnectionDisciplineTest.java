package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The connection discipline on its own: one request at a time, keep-alive as HTTP/1.1 has it, and the two
 * clocks (request deadline, idle timeout). Whole-server behaviour with real sockets is in HostileClientsTest.
 */
final class ConnectionDisciplineTest {

    /** Records the requests handed to it; stops reading on the first one, as the mirror does while it answers. */
    private static final class BusyHandler extends ChannelInboundHandlerAdapter {
        final List<String> seen = new ArrayList<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            FullHttpRequest request = (FullHttpRequest) msg;
            seen.add(request.uri());
            request.release();
            ctx.channel().config().setAutoRead(false);
        }
    }

    private final List<EmbeddedChannel> channels = new ArrayList<>();

    @AfterEach
    void close() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    private EmbeddedChannel channel(Duration requestRead, Duration idle, BusyHandler handler) {
        EmbeddedChannel channel =
                new EmbeddedChannel(new ConnectionDiscipline(new ConnectionLimits(requestRead, idle, 10)), handler);
        channels.add(channel);
        return channel;
    }

    private static FullHttpRequest get(String uri) {
        return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri);
    }

    private static FullHttpResponse ok(boolean withLength) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        if (withLength) {
            response.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
        }
        return response;
    }

    @Test
    void aPipelinedRequestWaitsUntilReadingIsAskedForAgain() {
        BusyHandler handler = new BusyHandler();
        EmbeddedChannel channel = channel(Duration.ofMinutes(1), Duration.ofMinutes(1), handler);
        channel.writeInbound(get("/first"), get("/second"), get("/third"));
        assertThat(handler.seen).containsExactly("/first");

        channel.read();
        assertThat(handler.seen).containsExactly("/first", "/second");
        channel.config().setAutoRead(true);
        assertThat(handler.seen).containsExactly("/first", "/second", "/third");
    }

    @Test
    void theConnectionStaysOpenAfterAnAnswerOfKnownLength() {
        EmbeddedChannel channel = channel(Duration.ofMinutes(1), Duration.ofMinutes(1), new BusyHandler());
        channel.writeInbound(get("/"));
        channel.writeOutbound(ok(true));
        assertThat(channel.isOpen()).isTrue();
        FullHttpResponse sent = channel.readOutbound();
        assertThat(sent.headers().contains(HttpHeaderNames.CONNECTION)).isFalse();
        sent.release();
    }

    @Test
    void aClientThatAsksForCloseIsClosedAfterItsAnswer() {
        EmbeddedChannel channel = channel(Duration.ofMinutes(1), Duration.ofMinutes(1), new BusyHandler());
        FullHttpRequest request = get("/");
        request.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        channel.writeInbound(request);
        channel.writeOutbound(ok(true));
        assertThat(channel.isOpen()).isFalse();
        FullHttpResponse sent = channel.readOutbound();
        assertThat(sent.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
        sent.release();
    }

    @Test
    void anAnswerWithoutALengthEndsTheConnection() {
        EmbeddedChannel channel = channel(Duration.ofMinutes(1), Duration.ofMinutes(1), new BusyHandler());
        channel.writeInbound(get("/"));
        channel.writeOutbound(ok(false));
        assertThat(channel.isOpen()).isFalse();
        FullHttpResponse sent = channel.readOutbound();
        assertThat(sent.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
        sent.release();
    }

    @Test
    void aConnectionThatSendsNoRequestIsClosedAfterTheRequestReadTimeout() {
        EmbeddedChannel channel = channel(Duration.ofMillis(200), Duration.ofMinutes(1), new BusyHandler());
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            channel.runScheduledPendingTasks();
            return !channel.isOpen();
        });
    }

    @Test
    void aConnectionWithNoTrafficIsClosedAfterTheIdleTimeoutEvenWhileARequestIsAnswered() {
        // The request arrived (no request deadline runs), but its answer never leaves: only the idle timeout is left.
        EmbeddedChannel channel = channel(Duration.ofMinutes(1), Duration.ofMillis(200), new BusyHandler());
        channel.writeInbound(get("/"));
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            channel.runScheduledPendingTasks();
            return !channel.isOpen();
        });
    }
    /** Drops what it reads, as the operator API drops the rest of a request it refused before the body came. */
    private static final class DroppingHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }
    }

    /** A refused upload: its head read, answered with a 403 that ends the connection before any of its body. */
    private EmbeddedChannel refusedUpload(Duration requestRead, long length) {
        EmbeddedChannel channel = new EmbeddedChannel(
                new ConnectionDiscipline(new ConnectionLimits(requestRead, Duration.ofMinutes(1), 10)),
                new DroppingHandler());
        channels.add(channel);
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/api/v1/imports");
        head.headers().set(HttpHeaderNames.CONTENT_LENGTH, length);
        channel.writeInbound(head);
        FullHttpResponse refused = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.FORBIDDEN);
        refused.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
        refused.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        channel.writeOutbound(refused);
        FullHttpResponse sent = channel.readOutbound();
        sent.release();
        return channel;
    }

    private static HttpContent part(int bytes, boolean last) {
        return last
                ? new DefaultLastHttpContent(Unpooled.wrappedBuffer(new byte[bytes]))
                : new DefaultHttpContent(Unpooled.wrappedBuffer(new byte[bytes]));
    }

    @Test
    void anAnswerThatEndsTheConnectionWhileTheBodyIsComingClosesItOnceTheBodyHasBeenRead() {
        EmbeddedChannel channel = refusedUpload(Duration.ofMinutes(1), 32 * 1024);
        assertThat(channel.isOpen()).as("the body is still coming").isTrue();
        channel.writeInbound(part(16 * 1024, false));
        assertThat(channel.isOpen()).isTrue();
        channel.writeInbound(part(16 * 1024, true));
        assertThat(channel.isOpen()).as("the body has ended").isFalse();
    }

    @Test
    void aBodyLargerThanIsDrainedIsNotReadToItsEnd() {
        EmbeddedChannel channel = refusedUpload(Duration.ofMinutes(1), 10_000_000);
        channel.writeInbound(part(ConnectionDiscipline.MAX_DRAINED_BYTES, false));
        assertThat(channel.isOpen()).isTrue();
        channel.writeInbound(part(1, false));
        assertThat(channel.isOpen()).as("more than the bound was read").isFalse();
    }

    /**
     * A {@code 100 Continue} does not end the request: the body it asks for may take longer than the request read
     * timeout (an import of gigabytes), and its answer is still owed. Counted as the answer, it started the wait for
     * the next request, and the connection was cut after that timeout in the middle of the upload.
     */
    @Test
    void a100ContinueIsNotTheAnswerSoTheBodyItAsksForIsNotCutOffByTheRequestReadTimeout() {
        EmbeddedChannel channel = new EmbeddedChannel(
                new ConnectionDiscipline(new ConnectionLimits(Duration.ofMillis(200), Duration.ofMinutes(1), 10)),
                new DroppingHandler());
        channels.add(channel);
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/api/v1/imports");
        head.headers().set(HttpHeaderNames.CONTENT_LENGTH, 1_000_000);
        channel.writeInbound(head);
        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        ReferenceCountUtil.release(channel.readOutbound());

        await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(10)).until(() -> {
            channel.runScheduledPendingTasks();
            return channel.isOpen();
        });
        channel.writeInbound(part(16, true));
        channel.writeOutbound(ok(true));
        ReferenceCountUtil.release(channel.readOutbound());
        assertThat(channel.isOpen()).as("answered, kept alive").isTrue();
    }

    /**
     * Requests decoded behind a refused body (pipelined in the same read) are dropped, never handed on to run on a
     * connection that is closing.
     */
    @Test
    void aRequestPipelinedBehindARefusedBodyIsNotHandedOn() {
        List<Object> seen = new ArrayList<>();
        EmbeddedChannel channel = new EmbeddedChannel(
                new ConnectionDiscipline(new ConnectionLimits(Duration.ofMinutes(1), Duration.ofMinutes(1), 10)),
                new Recorder(seen));
        channels.add(channel);
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/api/v1/imports");
        head.headers().set(HttpHeaderNames.CONTENT_LENGTH, 32);
        channel.writeInbound(head);
        FullHttpResponse refused = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.FORBIDDEN);
        refused.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
        refused.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        channel.writeOutbound(refused);
        ReferenceCountUtil.release(channel.readOutbound());

        FullHttpRequest after = get("/after");
        channel.writeInbound(part(16, false), part(16, true), after);

        assertThat(seen).containsExactly("/api/v1/imports", "content", "content");
        assertThat(after.refCnt()).as("released").isZero();
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void theRestOfARefusedBodyIsDueWithinTheRequestReadTimeout() {
        EmbeddedChannel channel = refusedUpload(Duration.ofMillis(200), 32 * 1024);
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            channel.runScheduledPendingTasks();
            return !channel.isOpen();
        });
    }

    /** Records what it is handed (a request by its URI, a part of a body as "content"), and drops it. */
    private static final class Recorder extends ChannelInboundHandlerAdapter {
        private final List<Object> seen;

        Recorder(List<Object> seen) {
            this.seen = seen;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            seen.add(msg instanceof HttpRequest request ? request.uri() : "content");
            ReferenceCountUtil.release(msg);
        }
    }

    /** Holds every write, as a socket whose client does not read yet: the answer is on its way, not yet written. */
    private static final class HeldWrites extends ChannelOutboundHandlerAdapter {
        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            ReferenceCountUtil.release(msg);
        }
    }

    /**
     * A request pipelined behind one that asks for close is never handed on, however reading goes on (RFC 9112,
     * section 9.6: a server processes no request after that one); it was, once reading was on again, and answered.
     */
    @Test
    void aRequestPipelinedBehindOneThatAsksForCloseIsNeverHandedOn() {
        BusyHandler handler = new BusyHandler();
        EmbeddedChannel channel = channel(Duration.ofMinutes(1), Duration.ofMinutes(1), handler);
        FullHttpRequest closing = get("/closing");
        closing.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        channel.writeInbound(closing, get("/behind"));
        channel.config().setAutoRead(true);
        channel.writeInbound(get("/later"));

        assertThat(handler.seen).containsExactly("/closing");
    }

    /**
     * Requests waiting behind an answer that ends the connection are dropped when that answer is written, not handed
     * on while it is still on its way (a client slow to read): they were, and were answered without a close.
     */
    @Test
    void aRequestWaitingBehindAnAnswerThatEndsTheConnectionIsNeverHandedOn() {
        BusyHandler handler = new BusyHandler();
        EmbeddedChannel channel = new EmbeddedChannel(
                new HeldWrites(),
                new ConnectionDiscipline(new ConnectionLimits(Duration.ofMinutes(1), Duration.ofMinutes(1), 10)),
                handler);
        channels.add(channel);
        channel.writeInbound(get("/first"), get("/second"));
        channel.writeOutbound(ok(false));
        channel.config().setAutoRead(true);
        channel.writeInbound(get("/third"));

        assertThat(handler.seen).containsExactly("/first");
    }

    /**
     * The streamed body of a request dropped unread behind one that asks for close is still read, and dropped here,
     * before the connection closes after the last answer (within the linger), as a refused request's body is: the
     * connection closed at once, with the client's bytes unread, and a reset could lose that answer.
     */
    @Test
    void theBodyOfARequestDroppedBehindTheLastIsReadAndDroppedBeforeTheClose() {
        List<Object> seen = new ArrayList<>();
        EmbeddedChannel channel = new EmbeddedChannel(
                new ConnectionDiscipline(new ConnectionLimits(Duration.ofMinutes(1), Duration.ofMinutes(1), 10)),
                new Recorder(seen));
        channels.add(channel);
        FullHttpRequest closing = get("/closing");
        closing.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        HttpRequest upload = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/api/v1/imports");
        upload.headers().set(HttpHeaderNames.CONTENT_LENGTH, 32);
        channel.writeInbound(closing, upload, part(16, false));
        channel.writeOutbound(ok(true));
        ReferenceCountUtil.release(channel.readOutbound());
        assertThat(channel.isOpen())
                .as("the dropped request's body is still coming")
                .isTrue();

        channel.writeInbound(part(16, true));
        assertThat(channel.isOpen()).as("the body has ended").isFalse();
        assertThat(seen).as("nothing of the dropped request handed on").containsExactly("/closing");
    }
}
