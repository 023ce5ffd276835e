package io.providermirror.cache;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;

/**
 * A committed blob opened for one reader: a channel on its content (seek to read a range), and a lease that
 * keeps the blob from being evicted until {@link #close()}. Closing is idempotent. A store on the local disk
 * opens a {@link java.nio.channels.FileChannel}, which a server may send without copying.
 */
public final class OpenBlob implements AutoCloseable {

    private final StoredBlob blob;
    private final SeekableByteChannel channel;
    private final Runnable release;
    private boolean closed;

    /**
     * @param channel the blob's content, at position 0
     * @param release run once when the reader is done, after the channel is closed
     */
    public OpenBlob(StoredBlob blob, SeekableByteChannel channel, Runnable release) {
        this.blob = blob;
        this.channel = channel;
        this.release = release;
    }

    public StoredBlob blob() {
        return blob;
    }

    /** The blob's content; each {@code OpenBlob} has its own channel and position. */
    public SeekableByteChannel channel() {
        return channel;
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
