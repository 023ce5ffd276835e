package io.providermirror.cache;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A blob being written to a temporary file of a {@link FileBlobStore}, and the commit protocol: the content
 * is made durable, its sidecar written beside it in {@code tmp/}, then the blob and last its sidecar are
 * moved into place atomically, so a crash at any point leaves either the whole blob or nothing committed.
 */
final class FileBlobWrite implements BlobWrite {

    /** What the store does once a blob is committed (index it, evict to keep its bounds). */
    @FunctionalInterface
    interface Committed {
        void committed(StoredBlob blob) throws IOException;
    }

    private static final Logger LOG = LoggerFactory.getLogger(FileBlobWrite.class);

    private final CacheKey key;
    private final Path target;
    private final Path temporary;
    private final SeekableByteChannel channel;
    private final BlobLayout layout;
    private final Clock clock;
    private final FileBlobStore.WriteChannels writeChannels;
    private final FreeSpaceWatermark watermark;
    private final Committed committed;
    /** Flushes the temporary file in the background as it grows; null for a channel that is not a file's. */
    private final WriteBack.File writeBack;

    private long size;
    /** The file a new reader opens: the temporary file until the commit moved it. */
    private Path current;

    private boolean finished;

    FileBlobWrite(
            CacheKey key,
            BlobLayout layout,
            Clock clock,
            FileBlobStore.WriteChannels writeChannels,
            FreeSpaceWatermark watermark,
            WriteBack writeBack,
            Committed committed)
            throws IOException {
        this.key = key;
        this.target = layout.file(key);
        this.temporary = layout.newTemporary();
        this.layout = layout;
        this.clock = clock;
        this.writeChannels = writeChannels;
        this.watermark = watermark;
        this.committed = committed;
        this.channel = writeChannels.open(temporary);
        this.writeBack = channel instanceof FileChannel file ? writeBack.follow(file) : null;
        this.current = temporary;
    }

    /** The temporary file, for tests that look at the disk. */
    Path temporaryFile() {
        return temporary;
    }

    @Override
    public void write(ByteBuffer bytes) throws IOException {
        watermark.checkAppend(key, bytes.remaining());
        int count = bytes.remaining();
        while (bytes.hasRemaining()) {
            size += channel.write(bytes);
        }
        if (writeBack != null) {
            writeBack.written(count);
        }
    }

    /** A {@link FileChannel}, so that a reader may send the file without copying it. */
    @Override
    public synchronized FileChannel openReader() throws IOException {
        return FileChannel.open(current, StandardOpenOption.READ);
    }

    @Override
    public StoredBlob commit(String sha256) throws IOException {
        synchronized (this) {
            if (finished) {
                throw new IllegalStateException("blob " + key + " was already committed or aborted");
            }
            finished = true;
        }
        try {
            if (channel instanceof FileChannel file) {
                file.force(false);
            }
            channel.close();
            Files.createDirectories(target.getParent());
            Instant now = clock.instant();
            Files.setLastModifiedTime(temporary, FileTime.from(now));
            Path sidecarTemp = layout.newTemporary();
            BlobLayout.writeSidecar(new BlobLayout.Sidecar(sha256, size), sidecarTemp, writeChannels);
            synchronized (this) {
                BlobLayout.moveAtomically(temporary, target);
                current = target;
            }
            BlobLayout.moveAtomically(sidecarTemp, BlobLayout.sidecar(target));
            StoredBlob blob = new StoredBlob(key, size, sha256, now);
            committed.committed(blob);
            return blob;
        } catch (IOException | RuntimeException e) {
            discard();
            throw e;
        }
    }

    @Override
    public void abort() {
        synchronized (this) {
            if (finished) {
                return;
            }
            finished = true;
        }
        discard();
    }

    private void discard() {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("closing the temporary file of {} failed: {}", key, e.toString());
        }
        try {
            Files.deleteIfExists(temporary);
        } catch (IOException e) {
            LOG.warn("cannot remove temporary file {} of {}: {}", temporary, key, e.toString());
        }
    }
}
