package io.providermirror.upstream.transfer;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
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
 * or here when the reader hung up or the channel closed.
 */
final class TransferHandler extends ChannelInboundHandlerAdapter {

    /** Body bytes held for the reader before the channel stops reading from the origin. */
    static final int HIGH_WATER = 1 << 20;

    /** Below this many held bytes, a reader that took some asks the channel to read again. */
    static final int LOW_WATER = HIGH_WATER / 2;

    /** In the queue after the body's last buffer. */
    static final Object END = new Object();

    private static final Pattern PROXY_STATUS = Pattern.compile("status: (\\d{3})");

    private final CompletableFuture<HttpResponse> head = new CompletableFuture<>();
    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final AtomicLong queued = new AtomicLong();
    private final String destination;
    private volatile ChannelHandlerContext ctx;
    /** A read is under way; written on the event loop only. */
    private volatile boolean reading;
    /** The reader hung up; written on the event loop only. */
    private volatile boolean abandoned;
    /** The body ended or failed: nothing more is queued (event loop). */
    private boolean finished;
    /** An informational (1xx) response is being skipped (event loop). */
    private boolean informational;

    /** @param destination {@code host:port} of the origin, for a proxy's refusal */
    TransferHandler(String destination) {
        this.destination = destination;
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
            ReferenceCountUtil.release(msg);
            return;
        }
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
                    queue.add(END);
                    ctx.close();
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

    /** Fails the head, or else the body, unless it already ended (event loop). */
    void fail(Throwable cause) {
        if (finished || head.isCompletedExceptionally()) {
            return;
        }
        IOException failure = describe(cause);
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

    /** The reader hung up: releases what it never took and closes the connection. */
    void abandon() {
        execute(() -> {
            abandoned = true;
            releaseQueued();
            ctx.close();
        });
    }

    private void execute(Runnable task) {
        try {
            ctx.executor().execute(task);
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
    private IOException describe(Throwable cause) {
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
