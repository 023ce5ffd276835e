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
 * A response body read with a timeout on every read: the JDK client's own stream blocks for as long as the
 * origin stays silent. Buffers are requested one list at a time, so no more than one is ever held; a read
 * that waits longer than the timeout cancels the response and fails with {@link SocketTimeoutException}.
 */
final class TimedBodyStream extends InputStream implements Flow.Subscriber<List<ByteBuffer>> {

    private static final Object END = new Object();

    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final long timeoutNanos;
    private final Duration timeout;
    private volatile Flow.Subscription subscription;
    private Iterator<ByteBuffer> pending;
    private ByteBuffer current;
    private boolean done;

    TimedBodyStream(Duration timeout) {
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        subscription.request(1);
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
        while (current == null || !current.hasRemaining()) {
            if (pending != null && pending.hasNext()) {
                current = pending.next();
                continue;
            }
            if (done) {
                return -1;
            }
            Object item;
            try {
                item = queue.poll(timeoutNanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                cancel();
                throw new IOException("interrupted while reading from the origin", e);
            }
            if (item == null) {
                cancel();
                throw new SocketTimeoutException("no bytes for " + timeout.toSeconds() + " s");
            }
            if (item == END) {
                done = true;
                return -1;
            }
            if (item instanceof Throwable failure) {
                done = true;
                throw failure instanceof IOException io ? io : new IOException(failure);
            }
            @SuppressWarnings("unchecked")
            List<ByteBuffer> buffers = (List<ByteBuffer>) item;
            pending = buffers.iterator();
            subscription.request(1);
        }
        int n = Math.min(length, current.remaining());
        current.get(target, offset, n);
        return n;
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
