package io.providermirror.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.stream.ChunkedInput;
import io.providermirror.cache.ArchiveFill;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;

/**
 * A response body that follows an archive while it is fetched: each chunk is read from the growing temporary
 * object up to what the fill allows, {@code null} means "nothing yet" (the {@code ChunkedWriteHandler} waits
 * for the fill's next progress signal), and a failed fill fails the response so the client never receives a
 * complete body.
 */
final class FillChunkedInput implements ChunkedInput<ByteBuf> {

    private static final int CHUNK_SIZE = 64 * 1024;

    private final ArchiveFill fill;
    private final SeekableByteChannel channel;
    private final long length;
    private long position;

    FillChunkedInput(ArchiveFill fill, SeekableByteChannel channel, long length) {
        this.fill = fill;
        this.channel = channel;
        this.length = length;
    }

    @Override
    public boolean isEndOfInput() throws Exception {
        failIfFillFailed();
        return fill.completion().isDone() && position >= fill.readableBytes();
    }

    @Override
    @Deprecated
    public ByteBuf readChunk(ChannelHandlerContext ctx) throws Exception {
        return readChunk(ctx.alloc());
    }

    @Override
    public ByteBuf readChunk(ByteBufAllocator allocator) throws Exception {
        failIfFillFailed();
        long available = fill.readableBytes() - position;
        if (available <= 0) {
            return null;
        }
        int size = (int) Math.min(available, CHUNK_SIZE);
        ByteBuf chunk = ChannelRangeInput.readChunk(
                allocator, channel, position, size, "the archive's temporary file ended early");
        position += size;
        return chunk;
    }

    private void failIfFillFailed() throws IOException {
        if (fill.completion().isCompletedExceptionally()) {
            throw new IOException("the archive could not be fetched and verified; aborting the response");
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
