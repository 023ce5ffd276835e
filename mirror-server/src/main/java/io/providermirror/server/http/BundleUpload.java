package io.providermirror.server.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The body of one {@code POST /api/v1/imports}, written to a new file of its own in the operator API's upload
 * directory (inside the cache's area, named by the mirror, never by the request). Every method blocks: they run on
 * the executor, one after the other. Failures are unchecked, as they travel through futures.
 */
final class BundleUpload {

    private final Path directory;
    private Path file;
    private FileChannel channel;

    BundleUpload(Path directory) {
        this.directory = directory;
    }

    void open() {
        try {
            Files.createDirectories(directory);
            file = Files.createTempFile(directory, "bundle-", ".upload");
            channel = FileChannel.open(file, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the bundle to " + directory + ": " + e.getMessage(), e);
        }
    }

    void write(ByteBuffer bytes) {
        try {
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the bundle to " + file + ": " + e.getMessage(), e);
        }
    }

    /** The whole body is written: the file, closed, to be imported. */
    Path finish() {
        try {
            channel.force(false);
            channel.close();
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the bundle to " + file + ": " + e.getMessage(), e);
        }
    }

    /** Removes the file, whatever became of it. */
    void delete() {
        try {
            if (channel != null) {
                channel.close();
            }
            if (file != null) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            // Removed with the rest of the upload directory when the mirror starts next.
        }
    }
}
