package io.providermirror.cache;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/** A blob being written: bytes go to a temporary file that ends in exactly one of commit or abort. */
public interface BlobWrite extends AutoCloseable {

    /** The temporary file, readable while it is written. */
    Path temporaryFile();

    /** Appends bytes. */
    void write(ByteBuffer bytes) throws IOException;

    /** Opens a read-only channel on the blob: the temporary file before commit, the committed file after. */
    FileChannel openReader() throws IOException;

    /**
     * Makes the blob visible at its key with the given sha256; the caller has checked the bytes.
     *
     * @return the committed blob
     */
    StoredBlob commit(String sha256) throws IOException;

    /** Discards the blob; does nothing after commit. */
    void abort();

    /** Aborts unless committed. */
    @Override
    default void close() {
        abort();
    }
}
