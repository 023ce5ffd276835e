package io.providermirror.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The channel on a blob's content held in memory reads as a file channel on the same bytes would. */
final class HeldContentChannelTest {

    private static ByteBuffer content(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII)).asReadOnlyBuffer();
    }

    @Test
    void readsFromItsPositionInPiecesAsLargeAsTheDestinationTakes() throws IOException {
        ByteBuffer shared = content("hello world");
        HeldContentChannel channel = new HeldContentChannel(shared);
        ByteBuffer three = ByteBuffer.allocate(3);
        assertThat(channel.read(three)).isEqualTo(3);
        assertThat(new String(three.array(), StandardCharsets.US_ASCII)).isEqualTo("hel");
        channel.position(6);
        ByteBuffer rest = ByteBuffer.allocate(100);
        assertThat(channel.read(rest)).isEqualTo(5);
        assertThat(new String(rest.array(), 0, 5, StandardCharsets.US_ASCII)).isEqualTo("world");
        assertThat(channel.read(rest)).as("at the end").isEqualTo(-1);
        assertThat(channel.size()).isEqualTo(11);
        assertThat(shared.position()).as("the shared content is never moved").isZero();
    }

    @Test
    void aPositionPastTheEndIsKeptAndReadsFindTheEnd() throws IOException {
        HeldContentChannel channel = new HeldContentChannel(content("abc"));
        channel.position(10);
        assertThat(channel.position()).isEqualTo(10);
        assertThat(channel.read(ByteBuffer.allocate(4))).isEqualTo(-1);
        assertThatThrownBy(() -> channel.position(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSliceOfABufferIsReadFromItsPositionToItsLimit() throws IOException {
        ByteBuffer buffer = content("xxhelloxx");
        buffer.position(2).limit(7);
        HeldContentChannel channel = new HeldContentChannel(buffer);
        ByteBuffer all = ByteBuffer.allocate(10);
        assertThat(channel.read(all)).isEqualTo(5);
        assertThat(new String(all.array(), 0, 5, StandardCharsets.US_ASCII)).isEqualTo("hello");
        assertThat(channel.size()).isEqualTo(5);
    }

    @Test
    void isReadOnlyAndRefusesUseWhenClosed() throws IOException {
        HeldContentChannel channel = new HeldContentChannel(content("abc"));
        assertThatThrownBy(() -> channel.write(ByteBuffer.allocate(1))).isInstanceOf(NonWritableChannelException.class);
        assertThatThrownBy(() -> channel.truncate(1)).isInstanceOf(NonWritableChannelException.class);
        channel.close();
        assertThat(channel.isOpen()).isFalse();
        assertThatThrownBy(() -> channel.read(ByteBuffer.allocate(1))).isInstanceOf(ClosedChannelException.class);
        assertThatThrownBy(channel::size).isInstanceOf(ClosedChannelException.class);
    }
}
