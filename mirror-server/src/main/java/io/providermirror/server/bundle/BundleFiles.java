package io.providermirror.server.bundle;

import com.github.luben.zstd.ZstdInputStream;
import com.github.luben.zstd.ZstdOutputStream;
import io.providermirror.upstream.verify.PackageHashes;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

/**
 * How a bundle file is written and read: a tar, compressed with zstd when its name ends in {@code .zst}, each
 * entry named in the manifest by its sha256.
 */
final class BundleFiles {

    private static final byte[] ZSTD_MAGIC = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD};

    private BundleFiles() {}

    /** Writes {@code file}, compressed when {@code name} (the bundle's final name) ends in {@code .zst}. */
    static OutputStream write(Path file, Path name) throws IOException {
        OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
        return name.getFileName().toString().endsWith(".zst") ? new ZstdOutputStream(out, 3) : out;
    }

    /** Opens a bundle file for {@link #read(StreamEnd)}. */
    static StreamEnd open(Path file) throws IOException {
        return new StreamEnd(Files.newInputStream(file), null);
    }

    /**
     * Reads a bundle, recognising zstd by its first bytes whatever the file is called; the stream returned
     * tells whether the bundle's contents ended (see {@link StreamEnd}).
     */
    static StreamEnd read(StreamEnd file) throws IOException {
        BufferedInputStream in = new BufferedInputStream(file, 1 << 16);
        in.mark(4);
        byte[] head = in.readNBytes(4);
        in.reset();
        return new StreamEnd(
                java.util.Arrays.equals(head, ZSTD_MAGIC)
                        ? new BufferedInputStream(new ZstdInputStream(in), 1 << 16)
                        : in,
                file);
    }

    /**
     * A stream that remembers whether it ended: it returned its end, or (for the contents decoded from a file
     * {@code beneath}) decoding failed after the file had ended. A tar that fails to read then was cut short:
     * a truncated copy. A header that does not parse, or bytes zstd cannot decode before the file's end, are not.
     */
    static final class StreamEnd extends FilterInputStream {
        private final StreamEnd beneath;
        private boolean ended;

        private StreamEnd(InputStream in, StreamEnd beneath) {
            super(in);
            this.beneath = beneath;
        }

        @Override
        public int read() throws IOException {
            try {
                int b = super.read();
                ended |= b < 0;
                return b;
            } catch (IOException e) {
                ended |= beneath != null && beneath.ended;
                throw e;
            }
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            try {
                int n = super.read(buffer, offset, length);
                ended |= n < 0;
                return n;
            } catch (IOException e) {
                ended |= beneath != null && beneath.ended;
                throw e;
            }
        }

        boolean ended() {
            return ended;
        }
    }

    /** The sha256 of {@code bytes}, in hex as the manifest names every entry by it. */
    static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(PackageHashes.sha256().digest(bytes));
    }
}
