package io.providermirror.upstream.transfer;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A response whose head has arrived; its body is read with {@link #next()}, one buffer at a time, in the buffers
 * the client received it in. Not thread-safe: one reader reads and closes it.
 */
public final class TransferResponse implements Closeable {

    private static final ByteBuffer[] NO_PARTS = new ByteBuffer[0];

    private final URI uri;
    private final int status;
    private final HttpHeaders headers;
    private final OptionalLong contentLength;
    private final TransferHandler handler;
    private final Duration readTimeout;
    /** The buffer whose bytes the reader has now; released when it asks for more. */
    private ByteBuf current;
    /** The parts of {@link #current} not handed out yet, when it is made of several. */
    private ByteBuffer[] parts = NO_PARTS;

    private int nextPart;
    private boolean done;

    TransferResponse(URI uri, HttpResponse head, TransferHandler handler, Duration readTimeout) {
        this.uri = uri;
        this.status = head.status().code();
        this.headers = head.headers();
        long length = HttpUtil.getContentLength(head, -1L);
        this.contentLength = length >= 0 ? OptionalLong.of(length) : OptionalLong.empty();
        this.handler = handler;
        this.readTimeout = readTimeout;
    }

    /** The URL this response answers. */
    public URI uri() {
        return uri;
    }

    public int status() {
        return status;
    }

    /** The first value of a header, by its case-insensitive name. */
    public Optional<String> header(String name) {
        return Optional.ofNullable(headers.get(name));
    }

    /** The announced length of the body, when the origin announced one. */
    public OptionalLong contentLength() {
        return contentLength;
    }

    /**
     * The next bytes of the body, waiting at most the request's {@code readTimeout} for them to arrive; null at its
     * end. The buffer (often a direct one, as TLS decrypted it) is valid until the next call or {@link #close()}.
     *
     * @throws SocketTimeoutException when nothing arrived in time (the response is then closed)
     */
    public ByteBuffer next() throws IOException {
        if (nextPart < parts.length) {
            return parts[nextPart++];
        }
        release();
        if (done) {
            return null;
        }
        Object item;
        try {
            item = handler.poll(readTimeout.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new InterruptedIOException("interrupted while reading from the origin");
        }
        if (item == null) {
            close();
            throw new SocketTimeoutException("no bytes for " + readTimeout.toSeconds() + " s");
        }
        if (item == TransferHandler.END) {
            close();
            return null;
        }
        if (item instanceof IOException failure) {
            close();
            throw failure;
        }
        current = (ByteBuf) item;
        if (current.nioBufferCount() == 1) {
            return current.nioBuffer();
        }
        parts = current.nioBuffers();
        nextPart = 1;
        return parts[0];
    }

    private void release() {
        if (current != null) {
            current.release();
            current = null;
            parts = NO_PARTS;
            nextPart = 0;
        }
    }

    /** Releases what was received and hangs up, unless the body has ended. */
    @Override
    public void close() {
        release();
        if (!done) {
            done = true;
            handler.abandon();
        }
    }
}
