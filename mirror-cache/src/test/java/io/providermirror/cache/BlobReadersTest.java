package io.providermirror.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a reader of the {@link BlobStore} seam sees: channels and streams, never a file name. */
final class BlobReadersTest {

    private static final CacheKey KEY = CacheKey.of("example.test", "acme", "fake", "1.0.0", "a.zip");

    @TempDir
    Path root;

    private static ByteBuffer ascii(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static String read(SeekableByteChannel channel, int bytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(bytes);
        while (buffer.hasRemaining() && channel.read(buffer) > 0) {
            // reads until the buffer is full or nothing more is there yet
        }
        return new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII);
    }

    @Test
    void aReaderFollowsAFillInProgressThroughItsChannelAndReadsOnAcrossTheCommit() throws Exception {
        FillRegistry fills = new FillRegistry(new FileBlobStore(root, Clock.systemUTC()));
        ArchiveFill fill = fills.joinOrStart(KEY, f -> {}).orElseThrow().fill();
        fill.append(ascii("abc"));
        try (SeekableByteChannel reader = fill.openReader()) {
            assertThat(reader.size()).isEqualTo(3);
            assertThat(read(reader, 10)).isEqualTo("abc");
            assertThat(read(reader, 10)).as("nothing more yet").isEmpty();

            fill.append(ascii("def"));
            assertThat(reader.size())
                    .as("the channel sees the temporary object grow")
                    .isEqualTo(6);
            assertThat(read(reader, 10)).isEqualTo("def");

            fill.append(ascii("g"));
            StoredBlob blob = fill.commit(Sha256.hex(fill.openReader()));
            assertThat(blob.size()).isEqualTo(7);
            assertThat(read(reader, 10)).as("read on after the commit").isEqualTo("g");
        }
    }

    @Test
    void anOpenBlobReadsARangeThroughItsChannelAndTheWholeThroughItsStream() throws Exception {
        FileBlobStore store = new FileBlobStore(root, Clock.systemUTC());
        BlobWrite write = store.create(KEY);
        write.write(ascii("0123456789"));
        write.commit(Sha256.hex(write.openReader()));

        try (OpenBlob blob = store.open(KEY).orElseThrow()) {
            assertThat(blob.channel())
                    .as("the disk store's channel is a file, so it can be sent zero-copy")
                    .isInstanceOf(FileChannel.class);
            assertThat(read(blob.channel().position(3), 4)).isEqualTo("3456");
            blob.channel().position(0);
            try (InputStream in = blob.inputStream()) {
                assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII))
                        .isEqualTo("0123456789");
            }
        }
    }

    private static final String SHA256_OF_HELLO = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

    @Test
    void theStoreHashesWhatItsChannelsRead() throws Exception {
        FileBlobStore store = new FileBlobStore(root, Clock.systemUTC());
        BlobWrite write = store.create(KEY);
        write.write(ascii("hello"));
        write.commit(SHA256_OF_HELLO);

        FileBlobStore restarted = new FileBlobStore(root, Clock.systemUTC());
        try (OpenBlob blob = restarted.open(KEY).orElseThrow()) {
            assertThat(blob.blob().sha256()).isEqualTo(SHA256_OF_HELLO);
        }
    }
}
