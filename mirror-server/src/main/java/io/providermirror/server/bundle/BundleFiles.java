package io.providermirror.server.bundle;

import com.github.luben.zstd.ZstdInputStream;
import com.github.luben.zstd.ZstdOutputStream;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** How a bundle file is written and read: a tar, compressed with zstd when its name ends in {@code .zst}. */
final class BundleFiles {

    private static final byte[] ZSTD_MAGIC = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD};

    private BundleFiles() {
    }

    /** Writes {@code file}, compressed when {@code name} (the bundle's final name) ends in {@code .zst}. */
    static OutputStream write(Path file, Path name) throws IOException {
        OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
        return name.getFileName().toString().endsWith(".zst") ? new ZstdOutputStream(out, 3) : out;
    }

    /** Opens a bundle file for {@link #read(FileEnd)}. */
    static FileEnd open(Path file) throws IOException {
        return new FileEnd(Files.newInputStream(file));
    }

    /** Reads a bundle, recognising zstd by its first bytes whatever the file is called. */
    static InputStream read(FileEnd file) throws IOException {
        BufferedInputStream in = new BufferedInputStream(file, 1 << 16);
        in.mark(4);
        byte[] head = in.readNBytes(4);
        in.reset();
        return java.util.Arrays.equals(head, ZSTD_MAGIC) ? new BufferedInputStream(new ZstdInputStream(in), 1 << 16) : in;
    }

    /**
     * A bundle file that remembers when its last byte was read: a read of the bundle that fails after that
     * failed because the file ended before its contents did, which is what a truncated copy looks like.
     */
    static final class FileEnd extends FilterInputStream {
        private boolean reached;

        private FileEnd(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            reached |= b < 0;
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            reached |= n < 0;
            return n;
        }

        boolean reached() {
            return reached;
        }
    }
}
