package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.compress.utils.SeekableInMemoryByteChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class ChannelRangeInputTest {

    private static final UnpooledByteBufAllocator ALLOCATOR = new UnpooledByteBufAllocator(false);

    @TempDir
    Path tmp;

    private static String readAll(ChannelRangeInput input) throws Exception {
        StringBuilder out = new StringBuilder();
        while (!input.isEndOfInput()) {
            ByteBuf chunk = input.readChunk(ALLOCATOR);
            try {
                assertThat(chunk.readableBytes()).isLessThanOrEqualTo(3);
                out.append(chunk.toString(StandardCharsets.US_ASCII));
            } finally {
                chunk.release();
            }
        }
        return out.toString();
    }

    @Test
    void sendsARangeOfAChannelThatIsNoFileInChunks() throws Exception {
        var channel = new SeekableInMemoryByteChannel("0123456789".getBytes(StandardCharsets.US_ASCII));
        ChannelRangeInput input = new ChannelRangeInput(channel, 2, 7, 3);

        assertThat(readAll(input)).isEqualTo("2345678");
        assertThat(input.progress()).isEqualTo(7);
        assertThat(input.readChunk(ALLOCATOR)).isNull();
    }

    @Test
    void readsAFileChannelAtItsOffsetWhateverItsPosition() throws Exception {
        Path file = Files.writeString(tmp.resolve("a.zip"), "0123456789");
        try (var channel = java.nio.channels.FileChannel.open(file)) {
            channel.position(9);
            assertThat(readAll(new ChannelRangeInput(channel, 1, 4, 3))).isEqualTo("1234");
        }
    }

    @Test
    void failsWhenTheChannelEndsBeforeTheRange() throws Exception {
        var channel = new SeekableInMemoryByteChannel("0123".getBytes(StandardCharsets.US_ASCII));
        ChannelRangeInput input = new ChannelRangeInput(channel, 2, 5, 8);

        assertThatThrownBy(() -> input.readChunk(ALLOCATOR))
                .isInstanceOf(IOException.class)
                .hasMessage("the archive ended early");
    }
}
