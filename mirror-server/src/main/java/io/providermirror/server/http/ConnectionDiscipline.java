package io.providermirror.server.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * What a connection must keep to, in one handler behind the request aggregator: each request arrives within
 * {@code requestReadTimeout} of the connection opening or of the previous answer (a client that trickles bytes
 * or sits between requests is closed); no traffic either way for {@code idleTimeout} closes it (a client that
 * stops reading); requests are handed on one at a time, the next only while reading is on (a client that
 * pipelines without reading its answers cannot make the server queue them); and the connection stays open
 * after an answer only when both sides want that and the answer's length is defined (HTTP keep-alive). An answer
 * that ends the connection while its request's body is still coming (a refusal of a streamed request) closes it
 * once that body has been read, or {@link #MAX_DRAINED_BYTES} of it, or {@link #LINGER_NANOS} after the answer
 * (or {@code requestReadTimeout} if that is shorter) when the rest of it does not come: closing with a client's bytes
 * unread makes its system reset the connection, and the client could lose the answer before reading it. A client
 * that announced a body and waits for the connection to end before sending it sees the end after that linger.
 * These were four handlers; on a warm document each added its own passes over every message, a promise
 * listener, a timer scheduled and cancelled per request, or a queue per request.
 */
final class ConnectionDiscipline extends ChannelDuplexHandler {

    /**
     * The ordinal (from 1, in the order the codec read them) of the connection's last request, once it is known: set
     * when a request asks for the connection's end, or an answer ends it. Every request read after that one is
     * dropped here unread and is sent no {@code 100 Continue} ({@link ContinueResponse#inTurn}); the access log
     * leaves it out.
     */
    private static final AttributeKey<Integer> LAST_REQUEST = AttributeKey.valueOf("mirror.lastRequest");

    /** How much of a request's body is read and dropped after an answer that ends the connection. */
    static final int MAX_DRAINED_BYTES = 64 * 1024;
    /** How long after such an answer the rest of the body may take (nginx's {@code lingering_timeout}). */
    static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final long requestReadNanos;
    private final long idleNanos;
    private final long lingerNanos;

    /** The last time bytes were read, or a write completed. */
    private long lastActivityNanos;
    /** A request is awaited, due by {@link #requestDueNanos}. */
    private boolean awaitingRequest;

    private long requestDueNanos;
    /** The one timer of this connection, or null when none is scheduled. */
    private ScheduledFuture<?> check;
    /** Requests that arrived (handed on or queued) and whose answer has not been sent yet. */
    private int outstanding;

    /** Requests that wait for reading to be asked for (pipelined while one was answered). */
    private final ArrayDeque<Object> waiting = new ArrayDeque<>(2);
    /** Reading was asked for while nothing waited: hand on the next request even if auto-read is off. */
    private boolean handOnNext;

    /** Answers owed; with {@link #persistent}, whether the connection outlives the next answer (as Netty's). */
    private int pendingResponses;

    private boolean persistent = true;
    /**
     * A request came after the connection's last one (one that asked for close, or whose answer ends the
     * connection): it and everything read after it are dropped, never handed on (RFC 9112, section 9.6).
     */
    private boolean beyondLast;
    /** Requests taken (handed on or queued, and not dropped since): the connection's last one's ordinal, once known. */
    private int taken;
    /** The {@code 100 Continue} owed to a request, if one is, until its turn. */
    private final ContinueResponse owedContinue = new ContinueResponse();

    /** A request's head was read and its body has not ended yet (a request that reaches a handler unaggregated). */
    private boolean bodyComing;
    /** The answer ended the connection while the body was coming: it closes when the body has ended. */
    private boolean closeAfterBody;
    /** Bytes of the body read since that answer. */
    private long drained;

    private ChannelHandlerContext ctx;
    private boolean started;
    private final ChannelFutureListener wrote = future -> lastActivityNanos = System.nanoTime();
    private final ChannelFutureListener answered = this::answered;

    ConnectionDiscipline(ConnectionLimits limits) {
        this.requestReadNanos = limits.requestReadTimeout().toNanos();
        this.lingerNanos = Math.min(requestReadNanos, LINGER_NANOS);
        this.idleNanos = limits.idleTimeout().toNanos();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (ctx.channel().isActive() && ctx.channel().isRegistered()) {
            start();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start();
        super.channelActive(ctx);
    }

    /** The connection is open: the first request is awaited, and the clocks run. */
    private void start() {
        if (!started) {
            started = true;
            lastActivityNanos = System.nanoTime();
            awaitRequest();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closeAfterBody) {
            drain(ctx, msg);
            return;
        }
        if (beyondLast || (msg instanceof HttpRequest && !persistent)) {
            beyondLast = true;
            if (msg instanceof HttpRequest || msg instanceof HttpContent) {
                // Its body is read and dropped before the close, as a refused request's is (see the class comment).
                bodyComing = !(msg instanceof LastHttpContent);
            }
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest || msg instanceof HttpContent) {
            bodyComing = !(msg instanceof LastHttpContent);
        }
        if (msg instanceof HttpRequest || msg instanceof LastHttpContent) {
            // A 100 owed to this request (its body came anyway, whole), to one before it, or to the request whose
            // body just ended (an import's, sent without waiting): no 100 is needed now.
            owedContinue.cancel();
        }
        if (msg instanceof HttpRequest request) {
            outstanding++;
            taken++;
            awaitingRequest = false;
            if (persistent) {
                pendingResponses++;
                persistent = HttpUtil.isKeepAlive(request);
                if (!persistent) {
                    ctx.channel().attr(LAST_REQUEST).set(taken);
                }
            }
        }
        if (waiting.isEmpty() && (handOnNext || ctx.channel().config().isAutoRead())) {
            // Nothing is queued and the next handler may read: the common case passes straight through.
            handOnNext = false;
            ctx.fireChannelRead(msg);
            return;
        }
        waiting.add(msg);
        int atLeast = handOnNext ? 1 : 0;
        handOnNext = false;
        handOn(ctx, atLeast);
    }

    /**
     * After an answer that ends the connection while a request's body was coming: the rest of that body is handed
     * on (the handler the request went to drops it; a request dropped unread had none, so it is dropped here) until
     * it ends or {@link #MAX_DRAINED_BYTES} were read, then the connection closes; anything decoded after it (requests
     * pipelined behind the body, from the same read) is dropped, never handed on to run on a connection that is
     * closing.
     */
    private void drain(ChannelHandlerContext ctx, Object msg) {
        if (!bodyComing || msg instanceof HttpRequest || !(msg instanceof HttpContent content)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        bodyComing = !(msg instanceof LastHttpContent);
        drained += content.content().readableBytes();
        if (beyondLast) {
            ReferenceCountUtil.release(msg);
        } else {
            ctx.fireChannelRead(msg);
        }
        if (!bodyComing || drained > MAX_DRAINED_BYTES) {
            ctx.close();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        lastActivityNanos = System.nanoTime();
        // While requests wait, a read is not complete for the handler behind: handOn says when it is.
        if (waiting.isEmpty()) {
            ctx.fireChannelReadComplete();
        }
    }

    @Override
    public void read(ChannelHandlerContext ctx) {
        if (handOn(ctx, 1) == 0) {
            handOnNext = true;
            ctx.read();
        } else if (ctx.channel().config().isAutoRead()) {
            ctx.read();
        }
    }

    /** Hands on at least {@code atLeast} waiting requests, and more while auto-read is on; answers how many. */
    private int handOn(ChannelHandlerContext ctx, int atLeast) {
        int handed = 0;
        while (handed < atLeast || ctx.channel().config().isAutoRead()) {
            Object msg = waiting.poll();
            if (msg == null) {
                break;
            }
            handed++;
            // May come back here through read(): each request is polled before it is handed on, so none twice.
            ctx.fireChannelRead(msg);
        }
        if (handed > 0 && waiting.isEmpty()) {
            ctx.fireChannelReadComplete();
        }
        return handed;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof HttpResponse response) {
            if (response.status().codeClass() != HttpStatusClass.INFORMATIONAL) {
                pendingResponses = Math.max(0, pendingResponses - 1);
            }
            if (!HttpUtil.isKeepAlive(response) || !hasDefinedLength(response)) {
                // The client can tell where this answer ends only by the connection closing.
                pendingResponses = 0;
                persistent = false;
                dropQueuedRequests();
            }
            if (!keepsAlive()) {
                HttpUtil.setKeepAlive(response, false);
            }
        }
        // A write that completes is traffic for the idle timeout; the last part of an answer also ends a request (an
        // informational one, such as 100 Continue, does not: the request's body and its answer are still to come).
        boolean ends = msg instanceof LastHttpContent
                && !(msg instanceof HttpResponse response
                        && response.status().codeClass() == HttpStatusClass.INFORMATIONAL);
        ctx.write(msg, promise.unvoid().addListener(ends ? answered : wrote));
    }

    /**
     * The answer being written ends the connection: the requests waiting behind it (from the first queued request's
     * head on; what comes before it is the body of the request being answered) are dropped, as is all read later.
     */
    private void dropQueuedRequests() {
        ArrayDeque<Object> body = new ArrayDeque<>(2);
        for (Object msg = waiting.poll(); msg != null; msg = waiting.poll()) {
            if (msg instanceof HttpRequest) {
                beyondLast = true;
                outstanding = Math.max(0, outstanding - 1);
                taken--;
            }
            if (beyondLast) {
                ReferenceCountUtil.release(msg);
            } else {
                body.add(msg);
            }
        }
        waiting.addAll(body);
        ctx.channel().attr(LAST_REQUEST).set(taken);
    }

    /**
     * The ordinal of the last request {@code channel}'s connection takes ({@link #LAST_REQUEST}), or {@link
     * Integer#MAX_VALUE} while it is not known.
     */
    static int lastRequest(Channel channel) {
        Integer last =
                channel.hasAttr(LAST_REQUEST) ? channel.attr(LAST_REQUEST).get() : null;
        return last == null ? Integer.MAX_VALUE : last;
    }

    /**
     * A {@code 100 Continue} for a request that expects it ({@link ContinueResponse#inTurn}), once {@code outstanding}
     * falls to {@code whenOutstanding}; none for a request behind the connection's last one (dropped unread).
     */
    void continueInTurn(int whenOutstanding) {
        if (whenOutstanding > 0 && (!bodyComing || waiting.stream().anyMatch(HttpRequest.class::isInstance))) {
            // Handed on from the queue with its body read already, or with a request read behind it: no 100 is
            // needed, and the one slot may hold the 100 owed to that later request (still in the aggregator).
            return;
        }
        if (!beyondLast && !closeAfterBody && (whenOutstanding > 0 || persistent)) {
            owedContinue.owe(ctx.pipeline(), whenOutstanding, outstanding);
        }
    }

    private void answered(ChannelFuture future) {
        lastActivityNanos = System.nanoTime();
        outstanding = Math.max(0, outstanding - 1);
        owedContinue.answered(ctx.pipeline(), outstanding, keepsAlive() && future.isSuccess());
        if (!keepsAlive() && bodyComing && future.isSuccess() && !closeAfterBody) {
            // Read the rest of the body first (see the class comment), within the linger.
            closeAfterBody = true;
            awaitRequest(lingerNanos);
        } else if (!keepsAlive()) {
            future.channel().close();
        } else if (future.isSuccess() && future.channel().isActive() && outstanding == 0) {
            awaitRequest();
        }
    }

    private boolean keepsAlive() {
        return pendingResponses != 0 || persistent;
    }

    private static boolean hasDefinedLength(HttpResponse response) {
        String type = response.headers().get(HttpHeaderNames.CONTENT_TYPE);
        return HttpUtil.isContentLengthSet(response)
                || HttpUtil.isTransferEncodingChunked(response)
                || (type != null && type.regionMatches(true, 0, "multipart", 0, "multipart".length()))
                || response.status().codeClass() == HttpStatusClass.INFORMATIONAL
                || response.status().code() == HttpResponseStatus.NO_CONTENT.code();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stop();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    private void stop() {
        awaitingRequest = false;
        if (check != null) {
            check.cancel(false);
            check = null;
        }
        Object msg;
        while ((msg = waiting.poll()) != null) {
            ReferenceCountUtil.release(msg);
        }
    }

    /*
     * Deadlines move with every request and every write, but a timer is not scheduled and cancelled for each: the
     * connection has one, set for the earliest deadline when it was scheduled; when it runs it closes the
     * connection if a deadline has passed, or schedules itself again for the earliest one now.
     */
    private void awaitRequest() {
        awaitRequest(requestReadNanos);
    }

    private void awaitRequest(long withinNanos) {
        awaitingRequest = true;
        requestDueNanos = System.nanoTime() + withinNanos;
        if (withinNanos < requestReadNanos && check != null && check.getDelay(TimeUnit.NANOSECONDS) > withinNanos) {
            // Scheduled for a later deadline (the linger is shorter than the others): due sooner now.
            check.cancel(false);
            check = null;
        }
        if (check == null) {
            check = ctx.executor().schedule(this::expire, Math.min(withinNanos, idleNanos), TimeUnit.NANOSECONDS);
        }
    }

    private void expire() {
        check = null;
        if (!ctx.channel().isOpen()) {
            return;
        }
        long now = System.nanoTime();
        long due = lastActivityNanos + idleNanos;
        if (awaitingRequest && requestDueNanos - due < 0) {
            due = requestDueNanos;
        }
        if (now - due >= 0) {
            ctx.channel().close();
        } else {
            check = ctx.executor().schedule(this::expire, due - now, TimeUnit.NANOSECONDS);
        }
    }
}
