package io.providermirror.cache;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link BlobStore} on the local file system. Each blob is a file with a small sidecar file holding its
 * sha256 and size ({@link BlobLayout}); both are written through a temporary file in the store's own
 * {@code tmp/} directory and moved into place atomically, the blob first and its sidecar last, so a blob
 * without a sidecar (a crash between the two moves) is simply not there ({@link FileBlobWrite},
 * {@link StartupRecovery}).
 *
 * <p>The store keeps an in-memory index of its blobs in least-recently-used order ({@link BlobIndex}), built by a
 * scan at start-up, to hold the total size under a bound: after each commit it evicts the least recently used
 * blobs that no reader holds open. It also keeps a minimum of free space on its file system
 * ({@link FreeSpaceWatermark}): before a blob is written, least recently used blobs are evicted to restore it,
 * and when that cannot free enough the write is refused ({@link InsufficientStorageException}) rather than
 * filling the disk under what is already cached; a write in progress stops when less than half the minimum is
 * left. Blobs are evicted for free space only when evicting them is enough: a disk filled by something else is
 * not emptied of the cache in vain. Its channels are {@link FileChannel}s, which a server may send zero-copy.
 *
 * <p>The content of a small blob ({@link #HELD_BLOB_BYTES} at most) is held in memory once the hot path
 * ({@link #openVerified}) has opened it, up to {@link #HELD_TOTAL_BYTES} in all (a sixteenth of the heap, at most
 * 32 MiB), first come first held: its next
 * readers get {@link OpenBlob#held()} and no file is opened. What is held is the content of the file the index
 * records as committed and verified, hashed again when it is read to be held (an archive altered on disk is removed
 * then, as when it is first read after start-up); it goes whenever its index entry does (replaced, removed, evicted, purged) or
 * the file is found changed.
 */
public final class FileBlobStore implements BlobStore {

    /** Opens the temporary file a blob is written to; tests substitute one that fails like a full disk. */
    @FunctionalInterface
    interface WriteChannels {
        SeekableByteChannel open(Path file) throws IOException;
    }

    /** The usable bytes left on the store's file system; tests substitute a disk of any size. */
    @FunctionalInterface
    interface FreeSpace {
        long usableBytes() throws IOException;
    }

    /** What a full verification of the store found. */
    public record VerificationReport(int checked, List<CacheKey> removed) {}

    /** The largest blob whose content is held in memory (module archives, most of them). */
    public static final int HELD_BLOB_BYTES = 128 * 1024;
    /** How much blob content is held in memory at most: a sixteenth of the maximum heap, at most 32 MiB. */
    public static final long HELD_TOTAL_BYTES =
            Math.min(32L * 1024 * 1024, Runtime.getRuntime().maxMemory() / 16);

    private static final Logger LOG = LoggerFactory.getLogger(FileBlobStore.class);
    private static final WriteChannels DEFAULT_WRITE_CHANNELS =
            file -> FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);

    private final BlobLayout layout;
    private final Clock clock;
    private final long maxBytes;
    private final FreeSpaceWatermark watermark;
    private final WriteChannels writeChannels;
    private final WriteBack writeBack;
    private final BlobIndex index;

    /** Opens (creating) an unbounded store beneath {@code root}. */
    public FileBlobStore(Path root, Clock clock) throws IOException {
        this(root, clock, Long.MAX_VALUE);
    }

    /**
     * Opens (creating) a store beneath {@code root} that holds at most {@code maxBytes} of blobs, removing
     * temporary files that a previous process left behind and indexing what is committed.
     */
    public FileBlobStore(Path root, Clock clock, long maxBytes) throws IOException {
        this(root, clock, maxBytes, 0);
    }

    /**
     * As {@link #FileBlobStore(Path, Clock, long)}, keeping at least {@code minFreeBytes} free on the file
     * system of {@code root} (0: no watermark).
     */
    public FileBlobStore(Path root, Clock clock, long maxBytes, long minFreeBytes) throws IOException {
        this(root, clock, maxBytes, minFreeBytes, fileSystemOf(root), DEFAULT_WRITE_CHANNELS);
    }

    FileBlobStore(Path root, Clock clock, long maxBytes, WriteChannels writeChannels) throws IOException {
        this(root, clock, maxBytes, 0, () -> Long.MAX_VALUE, writeChannels);
    }

    private static FreeSpace fileSystemOf(Path root) throws IOException {
        Files.createDirectories(root);
        java.nio.file.FileStore fileStore = Files.getFileStore(root);
        return fileStore::getUsableSpace;
    }

    FileBlobStore(
            Path root, Clock clock, long maxBytes, long minFreeBytes, FreeSpace freeSpace, WriteChannels writeChannels)
            throws IOException {
        this(root, clock, maxBytes, minFreeBytes, freeSpace, writeChannels, new WriteBack());
    }

    FileBlobStore(
            Path root,
            Clock clock,
            long maxBytes,
            long minFreeBytes,
            FreeSpace freeSpace,
            WriteChannels writeChannels,
            WriteBack writeBack)
            throws IOException {
        this.writeBack = writeBack;
        this.index = new BlobIndex(maxBytes, clock, HELD_TOTAL_BYTES);
        this.watermark = new FreeSpaceWatermark(minFreeBytes, freeSpace);
        this.layout = new BlobLayout(root);
        this.clock = clock;
        this.maxBytes = maxBytes;
        this.writeChannels = writeChannels;
        layout.createDirectories();
        List<StartupRecovery.Found> found = new StartupRecovery(layout, this::find).recover();
        for (StartupRecovery.Found blob : found) {
            index.put(
                    blob.key(),
                    blob.size(),
                    blob.modified().toInstant(),
                    blob.used().toInstant(),
                    false);
        }
        LOG.info("archive cache: {} archives, {} bytes", found.size(), index.totalBytes());
        evictIfNeeded();
    }

    /** The file holding the blob at {@code key} (committed or not): for operators and tests, not for readers. */
    public Path file(CacheKey key) {
        return layout.file(key);
    }

    @Override
    public Optional<StoredBlob> find(CacheKey key) throws IOException {
        BlobLayout.OnDisk found = layout.read(key);
        if (found instanceof BlobLayout.OnDisk.Committed committed) {
            return Optional.of(committed.blob());
        }
        if (found instanceof BlobLayout.OnDisk.Damaged damaged) {
            if (damaged.severe()) {
                LOG.error("cache entry {} {}; removing it", key, damaged.problem());
            } else {
                LOG.warn("cache entry {} {}; removing it", key, damaged.problem());
            }
            remove(key);
        }
        return Optional.empty();
    }

    /** Opens the blob at {@code key} as a {@link FileChannel}, the first time after hashing it in full. */
    @Override
    public Optional<OpenBlob> open(CacheKey key) throws IOException {
        Optional<StoredBlob> found = find(key);
        if (found.isEmpty()) {
            index.remove(key);
            return Optional.empty();
        }
        StoredBlob blob = found.get();
        if (!index.verified(key) && !contentMatches(blob)) {
            return Optional.empty();
        }
        FileChannel channel;
        try {
            channel = FileChannel.open(layout.file(key), StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            index.remove(key);
            return Optional.empty();
        }
        index.opened(blob);
        return Optional.of(new OpenBlob(blob, channel, () -> release(key)));
    }

    /** As {@link #open}, from the memo of the last open: one open(2) and one fstat(2), no metadata read. */
    @Override
    public Optional<OpenBlob> openVerified(CacheKey key) throws IOException {
        // Pinned first, so eviction cannot take the file between this check and its open.
        BlobIndex.Pinned pinned = index.pinOpened(key).orElse(null);
        if (pinned == null) {
            return Optional.empty();
        }
        StoredBlob blob = pinned.blob();
        if (pinned.held() != null) {
            return Optional.of(new OpenBlob(blob, pinned.held(), () -> release(key)));
        }
        Optional<OpenBlob> open = Optional.empty();
        FileChannel channel = null;
        try {
            channel = FileChannel.open(layout.file(key), StandardOpenOption.READ);
            // A file changed behind the store's back is left to open(), which says so and removes it.
            if (channel.size() != blob.size()) {
                index.forgetOpened(key);
            } else if (blob.size() <= HELD_BLOB_BYTES && index.mayHold(blob.size())) {
                ByteBuffer content = readFully(channel, (int) blob.size());
                channel.close();
                channel = null;
                // Read anew: held from now on, so hashed before, as the first read after start-up is.
                if (matches(blob, Sha256.hex(content))) {
                    ByteBuffer held = content.asReadOnlyBuffer();
                    index.hold(blob, held);
                    open = Optional.of(new OpenBlob(blob, held, () -> release(key)));
                }
            } else {
                open = Optional.of(new OpenBlob(blob, channel, () -> release(key)));
                channel = null;
            }
        } catch (NoSuchFileException e) {
            index.forgetOpened(key);
        } finally {
            try {
                if (channel != null) {
                    channel.close();
                }
            } finally {
                if (open.isEmpty()) {
                    release(key);
                }
            }
        }
        return open;
    }

    /** The whole content of {@code channel}, of {@code size} bytes. */
    private static ByteBuffer readFully(FileChannel channel, int size) throws IOException {
        ByteBuffer content = ByteBuffer.allocate(size);
        while (content.hasRemaining()) {
            if (channel.read(content, content.position()) < 0) {
                throw new IOException("the cached file ended after " + content.position() + " of " + size + " bytes");
            }
        }
        return content.flip();
    }

    private void release(CacheKey key) {
        index.unpin(key);
        evictIfNeeded();
    }

    /** Hashes {@code blob} in full; a mismatch removes it. */
    private boolean contentMatches(StoredBlob blob) throws IOException {
        String actual;
        try (FileChannel channel = FileChannel.open(layout.file(blob.key()), StandardOpenOption.READ)) {
            actual = Sha256.hex(channel);
        } catch (NoSuchFileException e) {
            index.remove(blob.key());
            return false;
        }
        return matches(blob, actual);
    }

    /** Whether {@code actual} is {@code blob}'s sha256; if not, the blob was altered on disk and is removed. */
    private boolean matches(StoredBlob blob, String actual) throws IOException {
        if (!actual.equals(blob.sha256())) {
            LOG.error(
                    "cache entry {} was altered on disk (sha256 {} instead of {}); removing it so it is fetched"
                            + " again",
                    blob.key(),
                    actual,
                    blob.sha256());
            remove(blob.key());
            return false;
        }
        return true;
    }

    /** Hashes every committed blob, removing those whose content no longer matches. */
    public VerificationReport verifyAll() throws IOException {
        List<CacheKey> keys = index.keys();
        List<CacheKey> removed = new ArrayList<>();
        for (CacheKey key : keys) {
            Optional<StoredBlob> blob = find(key);
            if (blob.isEmpty() || !contentMatches(blob.get())) {
                removed.add(key);
                continue;
            }
            index.markVerified(key);
        }
        return new VerificationReport(keys.size(), removed);
    }

    /** Starts a write to a temporary {@link FileChannel}, once the watermark is kept. */
    @Override
    public BlobWrite create(CacheKey key) throws IOException {
        layout.file(key); // refuses a key the layout cannot hold before anything is evicted for it
        watermark.checkStart(watermark.restore(index, null, this::deleteEvicted));
        return new FileBlobWrite(key, layout, clock, writeChannels, watermark, writeBack, this::committed);
    }

    /**
     * Indexes a blob just moved into place, then evicts what its size asks for. The blob is committed whatever the
     * eviction meets: a file system that cannot say how much is free is left for the next write to meet.
     */
    private void committed(StoredBlob blob) {
        index.put(blob.key(), blob.size(), blob.committedAt(), true);
        evictIfNeeded();
        try {
            watermark.restore(index, blob.key(), this::deleteEvicted);
        } catch (IOException e) {
            LOG.warn(
                    "cached {}, but the free space of the cache's file system cannot be read to keep"
                            + " cache.minFreeSpace: {}",
                    blob.key(),
                    e.toString());
        }
    }

    @Override
    public void remove(CacheKey key) throws IOException {
        layout.delete(key);
        index.remove(key);
    }

    @Override
    public List<BlobSummary> list() {
        return index.summaries();
    }

    @Override
    public long totalBytes() {
        return index.totalBytes();
    }

    @Override
    public int count() {
        return index.count();
    }

    @Override
    public long evictions() {
        return index.evictions();
    }

    @Override
    public long heldBytes() {
        return index.heldBytes();
    }

    private void evictIfNeeded() {
        deleteEvicted(index.evictOverBound(), "to keep the archive cache under " + maxBytes + " bytes");
    }

    /** Deletes blobs already taken out of the index, with their sidecars. */
    private void deleteEvicted(List<CacheKey> victims, String why) {
        for (CacheKey victim : victims) {
            try {
                layout.delete(victim);
                LOG.info("evicted {} {}", victim, why);
            } catch (IOException e) {
                LOG.warn("cannot evict {}: {}", victim, e.toString());
            }
        }
    }
}
