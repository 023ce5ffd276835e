package io.providermirror.upstream;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A document's body read with a timeout on every read: the JDK client's own stream blocks for as long as the
 * origin stays silent. At most {@value #WINDOW} lists of buffers are requested ahead of the reader, so a few
 * hundred KiB at most are held; a read takes whatever has arrived, up to its length, and waits only when
 * nothing has. A read that waits longer than the timeout cancels the response and fails with
 * {@link SocketTimeoutException}. The stream also has a deadline for the whole body: no read waits past it,
 * and a read that finds nothing arrived when it comes cancels the response and fails with
 * {@link DeadlineExceeded}, however steadily the origin trickles bytes until then.
 */
final class TimedBodyStream extends InputStream implements Flow.Subscriber<List<ByteBuffer>> {

    private static final Object END = new Object();
    /** Lists of buffers the client may deliver ahead of the reader (each list is typically one 16 KiB buffer). */
    private static final int WINDOW = 16;

    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final long timeoutNanos;
    private final Duration timeout;
    /** The {@link System#nanoTime()} past which no read waits. */
    private final long deadlineNanos;

    private volatile Flow.Subscription subscription;
    private Iterator<ByteBuffer> pending;
    private ByteBuffer current;
    private boolean done;
    /** A failure that arrived behind bytes the last read returned; the next read throws it. */
    private Throwable failed;

    /** A stream whose every read waits at most {@code timeout}, and none past {@code deadlineNanos} ({@link System#nanoTime()}). */
    TimedBodyStream(Duration timeout, long deadlineNanos) {
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
        this.deadlineNanos = deadlineNanos;
    }

    /** A read ran into the stream's deadline for the whole body; the response was cancelled. */
    static final class DeadlineExceeded extends SocketTimeoutException {
        private static final long serialVersionUID = 1L;

        DeadlineExceeded() {
            super("the body did not arrive before its deadline");
        }
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        subscription.request(WINDOW);
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
        queue.add(item);
    }

    @Override
    public void onError(Throwable throwable) {
        queue.add(throwable);
    }

    @Override
    public void onComplete() {
        queue.add(END);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] target, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        int copied = 0;
        while (copied < length) {
            if (current != null && current.hasRemaining()) {
                int n = Math.min(length - copied, current.remaining());
                current.get(target, offset + copied, n);
                copied += n;
                continue;
            }
            if (pending != null && pending.hasNext()) {
                current = pending.next();
                continue;
            }
            if (done) {
                break;
            }
            // What has arrived fills the read; only an empty read waits for the origin.
            Object item = copied > 0 ? queue.poll() : take();
            if (item == null) {
                break;
            }
            if (item == END) {
                done = true;
                break;
            }
            if (item instanceof Throwable failure) {
                done = true;
                if (copied > 0) {
                    // Hand over what arrived; the next read reports the failure.
                    failed = failure;
                    break;
                }
                throw failure instanceof IOException io ? io : new IOException(failure);
            }
            @SuppressWarnings("unchecked")
            List<ByteBuffer> buffers = (List<ByteBuffer>) item;
            pending = buffers.iterator();
            subscription.request(1);
        }
        if (copied == 0 && failed != null) {
            Throwable failure = failed;
            failed = null;
            throw failure instanceof IOException io ? io : new IOException(failure);
        }
        return copied == 0 && done ? -1 : copied;
    }

    private Object take() throws IOException {
        Object item = queue.poll();
        if (item != null) {
            return item;
        }
        long wait = timeoutNanos;
        boolean deadlineFirst = false;
        long left = deadlineNanos - System.nanoTime();
        if (left < wait) {
            wait = Math.max(0, left);
            deadlineFirst = true;
        }
        try {
            item = queue.poll(wait, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cancel();
            throw new IOException("interrupted while reading from the origin", e);
        }
        if (item == null) {
            cancel();
            if (deadlineFirst) {
                throw new DeadlineExceeded();
            }
            throw new SocketTimeoutException("no bytes for " + timeout.toSeconds() + " s");
        }
        return item;
    }

    private void cancel() {
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }

    @Override
    public void close() {
        done = true;
        cancel();
    }
}
