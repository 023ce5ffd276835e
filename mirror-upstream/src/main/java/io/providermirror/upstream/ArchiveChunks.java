package io.providermirror.upstream;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * An archive's body in the chunks it arrives in: each {@link #next()} hands over the next bytes in the buffer the
 * client received them in (a direct buffer, as TLS decrypted it), so that they can be hashed and written to the
 * cache without being copied through a byte array first.
 */
public interface ArchiveChunks extends Closeable {

    /**
     * The next bytes, waiting at most {@code upstream.readTimeout} for them; null at the end of the body. The
     * buffer is valid until the next call or {@link #close()}; reading it (moving its position) is the caller's.
     *
     * @throws java.net.SocketTimeoutException when the origin sent nothing for that long
     */
    ByteBuffer next() throws IOException;

    /** Hangs up unless the body has ended, and releases what was received. */
    @Override
    void close() throws IOException;

    /** The chunks of a stream, read into one heap buffer that each call refills: for bodies that are streams. */
    static ArchiveChunks of(InputStream in) {
        return new ArchiveChunks() {
            private final byte[] buffer = new byte[256 * 1024];

            @Override
            public ByteBuffer next() throws IOException {
                int n = in.read(buffer);
                return n < 0 ? null : ByteBuffer.wrap(buffer, 0, n);
            }

            @Override
            public void close() throws IOException {
                in.close();
            }
        };
    }

    /** The same bytes as a stream, for readers that want one. */
    static InputStream asStream(ArchiveChunks chunks) {
        return new InputStream() {
            private ByteBuffer current;
            private boolean ended;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] target, int offset, int length) throws IOException {
                if (length == 0) {
                    return 0;
                }
                while (current == null || !current.hasRemaining()) {
                    if (ended || (current = chunks.next()) == null) {
                        ended = true;
                        return -1;
                    }
                }
                int n = Math.min(length, current.remaining());
                current.get(target, offset, n);
                return n;
            }

            @Override
            public void close() throws IOException {
                chunks.close();
            }
        };
    }
}
