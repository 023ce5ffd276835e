package io.providermirror.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.stream.ChunkedInput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;

/**
 * A response body of one range of an archive that is not a local file (a blob store's channel on something
 * else), read a chunk at a time as the connection drains. Archives on disk are sent as files instead
 * ({@code DefaultFileRegion}, {@code ChunkedNioFile}), which copy nothing into the heap.
 */
final class ChannelRangeInput implements ChunkedInput<ByteBuf> {

    private final SeekableByteChannel channel;
    private final long offset;
    private final long length;
    private final int chunkSize;
    private long position;

    ChannelRangeInput(SeekableByteChannel channel, long offset, long length, int chunkSize) {
        if (offset < 0 || length < 0 || chunkSize <= 0) {
            throw new IllegalArgumentException("range: " + offset + ", " + length + ", " + chunkSize
                    + " (expected: offset >= 0, length >= 0, chunkSize > 0)");
        }
        this.channel = channel;
        this.offset = offset;
        this.length = length;
        this.chunkSize = chunkSize;
    }

    @Override
    public boolean isEndOfInput() {
        return position >= length;
    }

    @Override
    @Deprecated
    public ByteBuf readChunk(ChannelHandlerContext ctx) throws Exception {
        return readChunk(ctx.alloc());
    }

    @Override
    public ByteBuf readChunk(ByteBufAllocator allocator) throws Exception {
        if (isEndOfInput()) {
            return null;
        }
        int size = (int) Math.min(length - position, chunkSize);
        ByteBuf chunk = readChunk(allocator, channel, offset + position, size, "the archive ended early");
        position += size;
        return chunk;
    }

    /**
     * A buffer with {@code size} bytes of {@code channel} from {@code at}, released again when they cannot all be
     * read.
     *
     * @param endedEarly the failure's message when the channel holds fewer bytes
     */
    static ByteBuf readChunk(
            ByteBufAllocator allocator, SeekableByteChannel channel, long at, int size, String endedEarly)
            throws IOException {
        ByteBuf buffer = allocator.buffer(size);
        boolean release = true;
        try {
            readFully(channel, at, buffer, size, endedEarly);
            release = false;
            return buffer;
        } finally {
            if (release) {
                buffer.release();
            }
        }
    }

    /**
     * Appends {@code size} bytes of {@code channel} from {@code at} to {@code buffer}: positionally from a file
     * (its position untouched), else by seeking the channel, which belongs to one response.
     *
     * @param endedEarly the failure's message when the channel holds fewer bytes
     */
    private static void readFully(SeekableByteChannel channel, long at, ByteBuf buffer, int size, String endedEarly)
            throws IOException {
        int read = 0;
        while (read < size) {
            int n;
            if (channel instanceof FileChannel file) {
                n = buffer.writeBytes(file, at + read, size - read);
            } else {
                ByteBuffer target = buffer.nioBuffer(buffer.writerIndex(), size - read);
                n = channel.position(at + read).read(target);
                if (n > 0) {
                    buffer.writerIndex(buffer.writerIndex() + n);
                }
            }
            if (n < 0) {
                throw new IOException(endedEarly);
            }
            read += n;
        }
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public long progress() {
        return position;
    }

    @Override
    public void close() throws Exception {
        channel.close();
    }
}
