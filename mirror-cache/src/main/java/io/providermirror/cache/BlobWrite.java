package io.providermirror.cache;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;

/**
 * A blob being written: bytes go to a temporary object that ends in exactly one of commit or abort. Readers
 * may follow the write while it grows, through {@link #openReader()}.
 */
public interface BlobWrite extends AutoCloseable {

    /** Appends bytes. */
    void write(ByteBuffer bytes) throws IOException;

    /**
     * Opens a read-only channel on the blob, each with its own position: the temporary object before commit
     * (it grows as bytes are written; its size is what was written so far), the committed blob after.
     */
    SeekableByteChannel openReader() throws IOException;

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
