package io.providermirror.cache;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;

/** A read-only channel on a blob's content held in memory, for readers that want a channel ({@link OpenBlob}). */
final class HeldContentChannel implements SeekableByteChannel {

    private final ByteBuffer content;
    private boolean open = true;

    /** @param content the whole content, at position 0; this channel moves its position */
    HeldContentChannel(ByteBuffer content) {
        this.content = content;
    }

    @Override
    public synchronized int read(ByteBuffer destination) throws ClosedChannelException {
        ensureOpen();
        if (!content.hasRemaining()) {
            return -1;
        }
        int count = Math.min(content.remaining(), destination.remaining());
        destination.put(content.slice().limit(count));
        content.position(content.position() + count);
        return count;
    }

    @Override
    public int write(ByteBuffer source) {
        throw new NonWritableChannelException();
    }

    @Override
    public synchronized long position() throws ClosedChannelException {
        ensureOpen();
        return content.position();
    }

    @Override
    public synchronized SeekableByteChannel position(long newPosition) throws ClosedChannelException {
        ensureOpen();
        if (newPosition < 0) {
            throw new IllegalArgumentException("position: " + newPosition + " (expected: >= 0)");
        }
        content.position((int) Math.min(newPosition, content.limit()));
        return this;
    }

    @Override
    public synchronized long size() throws ClosedChannelException {
        ensureOpen();
        return content.limit();
    }

    @Override
    public SeekableByteChannel truncate(long size) {
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

    private void ensureOpen() throws ClosedChannelException {
        if (!open) {
            throw new ClosedChannelException();
        }
    }
}
