package io.providermirror.server.core;

import io.providermirror.cache.ArchiveFill;
import io.providermirror.cache.BlobRedirect;
import io.providermirror.cache.OpenBlob;
import io.providermirror.cache.StoredBlob;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.util.Optional;
import java.util.OptionalLong;

/** Where an archive's bytes come from for one response; the receiver closes it. */
public sealed interface ArchiveSource extends AutoCloseable {

    /** A committed, verified archive in the cache, opened (and pinned against eviction) for this response. */
    record Cached(OpenBlob open) implements ArchiveSource {
        public StoredBlob blob() {
            return open.blob();
        }

        /** The archive's content; a {@code FileChannel} when it is on the local disk, so it is sent zero-copy. */
        public SeekableByteChannel channel() {
            return open.channel();
        }

        /** The archive's whole content, read-only, when the store holds it in memory (a small one): sent as it is. */
        public Optional<ByteBuffer> held() {
            return open.held();
        }

        @Override
        public void close() throws IOException {
            open.close();
        }
    }

    /**
     * An archive being fetched from its origin right now: the response follows the fill as it grows.
     *
     * @param length the length the origin announced, if it did
     */
    record Filling(ArchiveFill fill, OptionalLong length, SeekableByteChannel channel) implements ArchiveSource {
        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /**
     * An archive committed in a shared store that clients read from directly ({@code cache.s3.redirectArchives}):
     * the response sends the client to a short-lived URL of the object rather than sending the bytes itself.
     */
    record Redirected(BlobRedirect redirect) implements ArchiveSource {
        public StoredBlob blob() {
            return redirect.blob();
        }

        @Override
        public void close() {
            // Nothing is held: the store keeps the object, and the URL expires by itself.
        }
    }

    @Override
    void close() throws IOException;
}
