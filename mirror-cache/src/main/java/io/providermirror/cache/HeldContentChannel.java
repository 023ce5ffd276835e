package io.providermirror.cache;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;

/**
 * A read-only channel on a blob's content held in memory, for readers that want a channel ({@link OpenBlob}): a
 * position of its own, which may be set past the end (reads there find the end), as a file channel's may.
 */
final class HeldContentChannel implements SeekableByteChannel {

    private final ByteBuffer content;
    private long position;
    private boolean open = true;

    /** @param content the whole content, from its position to its limit; never moved */
    HeldContentChannel(ByteBuffer content) {
        this.content = content.slice();
    }

    @Override
    public synchronized int read(ByteBuffer destination) throws ClosedChannelException {
        ensureOpen();
        if (position >= content.limit()) {
            return -1;
        }
        int count = Math.min(content.limit() - (int) position, destination.remaining());
        destination.put(content.slice((int) position, count));
        position += count;
        return count;
    }

    @Override
    public int write(ByteBuffer source) throws ClosedChannelException {
        ensureOpen();
        throw new NonWritableChannelException();
    }

    @Override
    public synchronized long position() throws ClosedChannelException {
        ensureOpen();
        return position;
    }

    @Override
    public synchronized SeekableByteChannel position(long newPosition) throws ClosedChannelException {
        ensureOpen();
        if (newPosition < 0) {
            throw new IllegalArgumentException("position: " + newPosition + " (expected: >= 0)");
        }
        position = newPosition;
        return this;
    }

    @Override
    public synchronized long size() throws ClosedChannelException {
        ensureOpen();
        return content.limit();
    }

    @Override
    public SeekableByteChannel truncate(long size) throws ClosedChannelException {
        ensureOpen();
        throw new NonWritableChannelException();
    }

    @Override
    public synchronized boolean isOpen() {
        return open;
    }

    @Override
    public synchronized void close() {
        open = false;
    }

    private synchronized void ensureOpen() throws ClosedChannelException {
        if (!open) {
            throw new ClosedChannelException();
        }
    }
}
