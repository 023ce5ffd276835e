package io.providermirror.cache;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.util.Optional;

/**
 * A committed blob opened for one reader: a channel on its content (seek to read a range), and a lease that
 * keeps the blob from being evicted until {@link #close()}. Closing is idempotent. A store on the local disk
 * opens a {@link java.nio.channels.FileChannel}, which a server may send without copying; a small blob it holds in
 * memory comes as its {@linkplain #held() content}, which a server sends as it is.
 */
public final class OpenBlob implements AutoCloseable {

    private final StoredBlob blob;
    private final SeekableByteChannel channel;
    private final ByteBuffer held;
    private final Runnable release;
    private boolean closed;

    /**
     * @param channel the blob's content, at position 0
     * @param release run once when the reader is done, after the channel is closed
     */
    public OpenBlob(StoredBlob blob, SeekableByteChannel channel, Runnable release) {
        this.blob = blob;
        this.channel = channel;
        this.held = null;
        this.release = release;
    }

    /**
     * A blob whose whole content is in memory.
     *
     * @param held    the blob's whole content, read-only, from its position to its limit (left as they are: it
     *                may be shared with other readers)
     * @param release run once when the reader is done
     */
    public OpenBlob(StoredBlob blob, ByteBuffer held, Runnable release) {
        this.blob = blob;
        this.held = held.slice();
        this.channel = new HeldContentChannel(this.held);
        this.release = release;
    }

    public StoredBlob blob() {
        return blob;
    }

    /** The blob's content; each {@code OpenBlob} has its own channel and position. */
    public SeekableByteChannel channel() {
        return channel;
    }

    /** The blob's whole content, read-only, when it is held in memory: no read needed. */
    public Optional<ByteBuffer> held() {
        return Optional.ofNullable(held).map(ByteBuffer::duplicate);
    }

    /** The blob's content from the channel's position on; closing the stream closes the channel, not the lease. */
    public InputStream inputStream() {
        return Channels.newInputStream(channel);
    }

    @Override
    public void close() throws IOException {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            channel.close();
        } finally {
            release.run();
        }
    }
}
