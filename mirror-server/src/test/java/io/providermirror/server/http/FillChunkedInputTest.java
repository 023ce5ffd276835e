package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.providermirror.cache.ArchiveFill;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.FileBlobStore;
import io.providermirror.cache.FillRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A response body following an archive's fill: where it ends, and when it fails. */
final class FillChunkedInputTest {

    private static final CacheKey KEY = CacheKey.of("example.test", "acme", "fill", "1.0.0", "a.zip");

    @TempDir
    Path root;

    private ArchiveFill fillOf(byte[] content) throws IOException {
        ArchiveFill fill = new FillRegistry(new FileBlobStore(root, Clock.systemUTC()))
                .joinOrStart(KEY, f -> {})
                .orElseThrow()
                .fill();
        fill.begin(OptionalLong.of(content.length));
        fill.append(ByteBuffer.wrap(content));
        return fill;
    }

    @Test
    void theBodyEndsWithItsLastByteOnceTheArchiveIsVerifiedWithoutWaitingForTheCommit() throws Exception {
        ArchiveFill fill = fillOf(new byte[] {1, 2, 3, 4});
        FillChunkedInput body = new FillChunkedInput(fill, fill.openReader(), 4);
        assertThat(read(body))
                .as("all but the last byte before the verification")
                .isEqualTo(3);
        assertThat(body.isEndOfInput()).isFalse();

        fill.verified();

        assertThat(read(body)).isEqualTo(1);
        assertThat(body.isEndOfInput()).isTrue();
        assertThat(fill.completion()).isNotDone();
        body.close();
    }

    @Test
    void aVerifiedBodyIsSentToItsEndWhenTheCommitFails() throws Exception {
        ArchiveFill fill = fillOf(new byte[] {1, 2, 3, 4});
        FillChunkedInput body = new FillChunkedInput(fill, fill.openReader(), 4);
        fill.verified();
        fill.fail(new IOException("the disk failed while flushing"));

        assertThat(read(body)).isEqualTo(4);
        assertThat(body.isEndOfInput()).isTrue();
        body.close();
    }

    @Test
    void aFillThatFailsBeforeItIsVerifiedFailsTheBodyWithoutItsLastByte() throws Exception {
        ArchiveFill fill = fillOf(new byte[] {1, 2, 3, 4});
        FillChunkedInput body = new FillChunkedInput(fill, fill.openReader(), 4);
        assertThat(read(body)).isEqualTo(3);

        fill.fail(new IOException("the archive does not match its signed sha256"));

        assertThatThrownBy(body::isEndOfInput).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> body.readChunk(ByteBufAllocator.DEFAULT)).isInstanceOf(IOException.class);
        body.close();
    }

    /** Reads what the body gives now, until it says "nothing yet"; returns how many bytes. */
    private static int read(FillChunkedInput body) throws Exception {
        int bytes = 0;
        for (ByteBuf chunk = body.readChunk(ByteBufAllocator.DEFAULT);
                chunk != null;
                chunk = body.readChunk(ByteBufAllocator.DEFAULT)) {
            bytes += chunk.readableBytes();
            chunk.release();
        }
        return bytes;
    }
}
