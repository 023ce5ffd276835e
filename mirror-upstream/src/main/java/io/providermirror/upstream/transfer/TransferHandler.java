package io.providermirror.upstream.transfer;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.pool.ChannelPool;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.proxy.ProxyConnectException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The end of one request's pipeline: completes the response's head, and queues the body's buffers (the decoder's
 * slices of what TLS decrypted, not copies) for the reader on another thread. The channel reads only on demand
 * (auto-read is off): it goes on reading while less than {@link #HIGH_WATER} bytes wait for the reader, and
 * resumes once the reader has taken them down to {@link #LOW_WATER}; so the origin is read only as fast as the
 * reader writes, and an archive is never held in memory. Every buffer is released: by the reader once it moved on,
 * or here when the reader hung up or the channel closed. When the body has arrived whole and the origin keeps the
 * connection open, the handler leaves the pipeline (with the request's HTTP codec, whose leftover bytes, if any,
 * then reach the connection's guard and close it) and gives the connection back to its pool; in every other case
 * (a failure, a reader that hung up before the end, bytes after the body) the connection is closed.
 */
final class TransferHandler extends ChannelInboundHandlerAdapter {

    /** Body bytes held for the reader before the channel stops reading from the origin. */
    static final int HIGH_WATER = 1 << 20;

    /** Below this many held bytes, a reader that took some asks the channel to read again. */
    static final int LOW_WATER = HIGH_WATER / 2;

    /** In the queue after the body's last buffer. */
    static final Object END = new Object();

    /** Pipeline name of the request's HTTP codec, which leaves with this handler. */
    static final String HTTP = "http";

    private static final Pattern PROXY_STATUS = Pattern.compile("status: (\\d{3})");

    private final CompletableFuture<HttpResponse> head = new CompletableFuture<>();
    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final AtomicLong queued = new AtomicLong();
    private final String destination;
    private final boolean reusedConnection;
    private final ChannelPool pool;
    /** The connection; its event loop runs whatever this handler does, also before it is in the pipeline. */
    private final Channel channel;

    private volatile ChannelHandlerContext ctx;
    /** A read is under way; written on the event loop only. */
    private volatile boolean reading;
    /** The reader hung up; written on the event loop only. */
    private volatile boolean abandoned;
    /** The body ended or failed: nothing more is queued (event loop). */
    private boolean finished;
    /** An informational (1xx) response is being skipped (event loop). */
    private boolean informational;
    /** Something of the response arrived (event loop). */
    private boolean answered;
    /** Bytes came after the body: the connection is not kept (event loop). */
    private boolean surplus;
    /** The connection went back to its pool: this handler no longer owns it (event loop). */
    private boolean released;

    /**
     * @param destination      {@code host:port} of the origin, for a proxy's refusal
     * @param reusedConnection the connection carried a request before, so it may have been closed by the origin
     *                         meanwhile: a failure before any answer is then {@link StaleConnection}
     * @param pool             where the connection goes back after a body that arrived whole
     * @param channel          the connection the request is sent on
     */
    TransferHandler(String destination, boolean reusedConnection, ChannelPool pool, Channel channel) {
        this.destination = destination;
        this.reusedConnection = reusedConnection;
        this.pool = pool;
        this.channel = channel;
    }

    /** Completes with the response's head, or with why none came. */
    CompletableFuture<HttpResponse> head() {
        return head;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (finished || abandoned || !(msg instanceof HttpObject object)) {
            // Whatever follows the body is never read: the connection is not used again.
            surplus |= finished;
            ReferenceCountUtil.release(msg);
            return;
        }
        answered = true;
        if (object.decoderResult().isFailure()) {
            ReferenceCountUtil.release(msg);
            Throwable cause = object.decoderResult().cause();
            fail(new IOException("the response is not valid HTTP: " + cause.getMessage(), cause));
            ctx.close();
            return;
        }
        if (msg instanceof HttpResponse response) {
            if (response.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
                informational = true;
            } else {
                head.complete(response);
            }
        }
        if (msg instanceof HttpContent content) {
            ByteBuf bytes = content.content();
            if (informational || !bytes.isReadable()) {
                bytes.release();
            } else {
                queued.addAndGet(bytes.readableBytes());
                queue.add(bytes);
            }
            if (msg instanceof LastHttpContent) {
                if (informational) {
                    informational = false;
                } else {
                    finished = true;
                    if (HttpUtil.isKeepAlive(head.join())) {
                        // Not from inside the decoder's loop: the codec leaves the pipeline once this read is over.
                        // The reader sees the end only then, so its next request finds the connection in the pool.
                        ctx.executor().execute(() -> {
                            try {
                                release();
                            } finally {
                                queue.add(END);
                            }
                        });
                    } else {
                        queue.add(END);
                        ctx.close();
                    }
                }
            }
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        reading = false;
        readIfWanted();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
            fail(handshake.cause());
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(cause);
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        fail(new IOException(
                head.isDone()
                        ? "the origin closed the connection before the body ended"
                        : "the connection closed before the response began"));
        if (abandoned) {
            releaseQueued();
        }
        ctx.fireChannelInactive();
    }

    /** Takes this request's handlers out of the connection and gives it back to its pool (event loop). */
    private void release() {
        if (released || !ctx.channel().isOpen()) {
            return;
        }
        released = true;
        Channel channel = ctx.channel();
        ChannelPipeline pipeline = ctx.pipeline();
        pipeline.remove(this);
        // Bytes the codec holds beyond the body go on to the guard, which closes the connection.
        pipeline.remove(HTTP);
        if (surplus) {
            channel.close();
        } else {
            pool.release(channel);
        }
    }

    /** Fails the head, or else the body, unless it already ended (event loop). */
    void fail(Throwable cause) {
        if (finished || head.isCompletedExceptionally()) {
            return;
        }
        IOException described = describe(destination, cause);
        IOException failure = reusedConnection && !answered ? new StaleConnection(described) : described;
        if (!head.completeExceptionally(failure)) {
            finished = true;
            queue.add(failure);
        }
    }

    /** Starts reading if the reader wants more and no read is under way (event loop). */
    private void readIfWanted() {
        if (!reading && !finished && !abandoned && queued.get() < HIGH_WATER) {
            reading = true;
            ctx.read();
        }
    }

    /** Asks the channel to read, from any thread: after the request is sent, and when the reader took bytes. */
    void demand() {
        if (!reading && queued.get() <= LOW_WATER) {
            execute(this::readIfWanted);
        }
    }

    /** The reader's next item, waiting at most {@code timeoutNanos}: a buffer, {@link #END}, a failure, or null. */
    Object poll(long timeoutNanos) throws InterruptedException {
        Object item = queue.poll(timeoutNanos, TimeUnit.NANOSECONDS);
        if (item instanceof ByteBuf bytes) {
            queued.addAndGet(-bytes.readableBytes());
            demand();
        }
        return item;
    }

    /**
     * The reader hung up: releases what it never took and closes the connection, unless it went back whole; also
     * when this handler never made it into the connection's pipeline (the connection closed first).
     */
    void abandon() {
        execute(() -> {
            abandoned = true;
            releaseQueued();
            if (!released) {
                channel.close();
            }
        });
    }

    private void execute(Runnable task) {
        try {
            channel.eventLoop().execute(task);
        } catch (RejectedExecutionException shutDown) {
            // The client is closed and so is every channel; what is left in the queue is released here.
            abandoned = true;
            releaseQueued();
        }
    }

    private void releaseQueued() {
        Object item;
        while ((item = queue.poll()) != null) {
            ReferenceCountUtil.release(item);
        }
    }

    /** The exception the caller sees: TLS and proxy failures as themselves, not as the decoder that met them. */
    static IOException describe(String destination, Throwable cause) {
        Throwable failure = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        // A refused tunnel also fails the TLS handshake waiting behind it, often first: the proxy's answer is the
        // cause that matters.
        for (Throwable link = cause; link != null; link = link.getCause()) {
            if (link instanceof ProxyConnectException) {
                failure = link;
                break;
            }
        }
        if (failure instanceof ProxyConnectException proxy) {
            Matcher status = PROXY_STATUS.matcher(String.valueOf(proxy.getMessage()));
            if (status.find()) {
                return new TunnelRefused(destination, Integer.parseInt(status.group(1)), proxy);
            }
            return proxy;
        }
        return failure instanceof IOException io ? io : new IOException(failure.toString(), failure);
    }
}
