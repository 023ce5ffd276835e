package io.providermirror.cache;

import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * A committed blob opened for one reader: its channel, and a lease that keeps the blob from being evicted
 * until {@link #close()}. Closing is idempotent.
 */
public final class OpenBlob implements AutoCloseable {

    private final StoredBlob blob;
    private final FileChannel channel;
    private final Runnable release;
    private boolean closed;

    OpenBlob(StoredBlob blob, FileChannel channel, Runnable release) {
        this.blob = blob;
        this.channel = channel;
        this.release = release;
    }

    public StoredBlob blob() {
        return blob;
    }

    public FileChannel channel() {
        return channel;
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
