package io.providermirror.cache;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link BlobStore} on the local file system. Each blob is a file with a small sidecar file holding its
 * sha256 and size; both are written through a temporary file in the store's own {@code tmp/} directory
 * (same file system) and moved into place atomically, the blob first and its sidecar last, so a blob
 * without a sidecar (a crash between the two moves) is simply not there.
 *
 * <p>The store keeps an in-memory index of its blobs in least-recently-used order, built by a scan at start-up,
 * to hold the total size under a bound: after each commit it evicts the least recently used blobs that no
 * reader holds open. It also keeps a minimum of free space on its file system: before a blob is written,
 * least recently used blobs are evicted to restore it, and when that cannot free enough the write is refused
 * ({@link InsufficientStorageException}) rather than filling the disk under what is already cached; a write in
 * progress stops when less than half the minimum is left. Blobs are
 * evicted for free space only when evicting them is enough: a disk filled by something else is not emptied
 * of the cache in vain.
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
    public record VerificationReport(int checked, List<CacheKey> removed) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(FileBlobStore.class);
    private static final String SIDECAR_SUFFIX = ".meta";
    private static final Pattern SIDECAR = Pattern.compile("([0-9a-f]{64}) ([0-9]{1,19})\\n?");

    private final Path blobs;
    private final Path tmp;
    private final Clock clock;
    private final long maxBytes;
    private final long minFreeBytes;
    private final FreeSpace freeSpace;
    private final WriteChannels writeChannels;
    private final Set<CacheKey> verified = ConcurrentHashMap.newKeySet();
    /** Verified blobs as last read from disk, so opening them again needs only their file. */
    private final java.util.Map<CacheKey, StoredBlob> known = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    private final LinkedHashMap<CacheKey, IndexEntry> index = new LinkedHashMap<>(64, 0.75f, true);
    private long totalBytes;
    private long evictions;

    private static final class IndexEntry {
        final long size;
        final Instant committedAt;
        int readers;

        IndexEntry(long size, Instant committedAt) {
            this.size = size;
            this.committedAt = committedAt;
        }
    }

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

    private static final WriteChannels DEFAULT_WRITE_CHANNELS =
            file -> FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);

    private static FreeSpace fileSystemOf(Path root) throws IOException {
        Files.createDirectories(root);
        java.nio.file.FileStore fileStore = Files.getFileStore(root);
        return fileStore::getUsableSpace;
    }

    FileBlobStore(Path root, Clock clock, long maxBytes, long minFreeBytes, FreeSpace freeSpace,
                  WriteChannels writeChannels) throws IOException {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("maxBytes: " + maxBytes + " (expected: > 0)");
        }
        if (minFreeBytes < 0) {
            throw new IllegalArgumentException("minFreeBytes: " + minFreeBytes + " (expected: >= 0)");
        }
        this.blobs = root.resolve("archives");
        this.tmp = root.resolve("tmp");
        this.clock = clock;
        this.maxBytes = maxBytes;
        this.minFreeBytes = minFreeBytes;
        this.freeSpace = freeSpace;
        this.writeChannels = writeChannels;
        Files.createDirectories(blobs);
        Files.createDirectories(tmp);
        removeTemporaryFiles();
        indexCommittedBlobs();
        evictIfNeeded();
    }

    private void removeTemporaryFiles() throws IOException {
        try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(tmp)) {
            for (Path leftover : leftovers) {
                LOG.info("removing unfinished download {} left by an earlier run", leftover.getFileName());
                Files.deleteIfExists(leftover);
            }
        }
    }

    private void indexCommittedBlobs() throws IOException {
        record Found(CacheKey key, long size, FileTime modified) {
        }
        List<Found> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(blobs)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                String name = file.getFileName().toString();
                if (name.endsWith(SIDECAR_SUFFIX)) {
                    Path blob = file.resolveSibling(name.substring(0, name.length() - SIDECAR_SUFFIX.length()));
                    if (!Files.exists(blob)) {
                        LOG.warn("removing the sidecar {} whose archive is gone", blobs.relativize(file));
                        Files.deleteIfExists(file);
                    }
                    continue;
                }
                CacheKey key = keyOf(file);
                Optional<StoredBlob> blob = key == null ? Optional.empty() : find(key);
                if (blob.isEmpty()) {
                    if (Files.exists(file)) {
                        LOG.warn("removing {}: it has no valid sidecar, so it was never committed", blobs.relativize(file));
                        Files.deleteIfExists(file);
                    }
                    continue;
                }
                found.add(new Found(key, blob.get().size(), Files.getLastModifiedTime(file)));
            }
        }
        found.sort(Comparator.comparing(Found::modified));
        synchronized (lock) {
            for (Found f : found) {
                index.put(f.key(), new IndexEntry(f.size(), f.modified().toInstant()));
                totalBytes += f.size();
            }
        }
        LOG.info("archive cache: {} archives, {} bytes", found.size(), totalBytes);
    }

    private CacheKey keyOf(Path file) {
        List<String> segments = new ArrayList<>();
        for (Path part : blobs.relativize(file)) {
            segments.add(part.toString());
        }
        try {
            return new CacheKey(segments);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    @Override
    public Optional<StoredBlob> find(CacheKey key) throws IOException {
        Path file = path(key);
        Path sidecar = sidecar(file);
        String meta;
        try {
            meta = Files.readString(sidecar, StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        Matcher m = SIDECAR.matcher(meta);
        if (!m.matches()) {
            LOG.warn("cache entry {} has an unreadable sidecar; removing it", key);
            remove(key);
            return Optional.empty();
        }
        long size = Long.parseLong(m.group(2));
        long actual;
        FileTime modified;
        try {
            actual = Files.size(file);
            modified = Files.getLastModifiedTime(file);
        } catch (NoSuchFileException e) {
            LOG.warn("cache entry {} lost its file; removing it", key);
            remove(key);
            return Optional.empty();
        }
        if (actual != size) {
            LOG.error("cache entry {} is {} bytes on disk but was committed with {}; removing it", key, actual, size);
            remove(key);
            return Optional.empty();
        }
        return Optional.of(new StoredBlob(key, file, size, m.group(1), modified.toInstant()));
    }

    @Override
    public Optional<OpenBlob> open(CacheKey key) throws IOException {
        Optional<StoredBlob> found = find(key);
        if (found.isEmpty()) {
            forget(key);
            return Optional.empty();
        }
        StoredBlob blob = found.get();
        if (!verified.contains(key)) {
            if (!contentMatches(blob)) {
                return Optional.empty();
            }
            verified.add(key);
        }
        FileChannel channel;
        try {
            channel = FileChannel.open(blob.path(), StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            forget(key);
            return Optional.empty();
        }
        known.put(key, blob);
        synchronized (lock) {
            IndexEntry entry = index.get(key);
            if (entry == null) {
                entry = new IndexEntry(blob.size(), blob.committedAt());
                index.put(key, entry);
                totalBytes += blob.size();
            }
            entry.readers++;
        }
        return Optional.of(new OpenBlob(blob, channel, () -> release(key)));
    }

    @Override
    public Optional<OpenBlob> openVerified(CacheKey key) throws IOException {
        StoredBlob blob = known.get(key);
        if (blob == null) {
            return Optional.empty();
        }
        FileChannel channel;
        try {
            channel = FileChannel.open(blob.path(), StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            known.remove(key);
            return Optional.empty();
        }
        boolean pinned = false;
        try {
            // A file changed behind the store's back is left to open(), which says so and removes it.
            if (channel.size() == blob.size()) {
                synchronized (lock) {
                    IndexEntry entry = index.get(key);
                    if (entry != null) {
                        entry.readers++;
                        pinned = true;
                    }
                }
            } else {
                known.remove(key);
            }
        } finally {
            if (!pinned) {
                channel.close();
            }
        }
        return pinned ? Optional.of(new OpenBlob(blob, channel, () -> release(key))) : Optional.empty();
    }

    private void release(CacheKey key) {
        synchronized (lock) {
            IndexEntry entry = index.get(key);
            if (entry != null && entry.readers > 0) {
                entry.readers--;
            }
        }
        evictIfNeeded();
    }

    /** Hashes {@code blob} in full; a mismatch removes it. */
    private boolean contentMatches(StoredBlob blob) throws IOException {
        String actual;
        try (InputStream in = Files.newInputStream(blob.path())) {
            MessageDigest digest = sha256();
            byte[] buffer = new byte[64 * 1024];
            int n;
            while ((n = in.read(buffer)) > 0) {
                digest.update(buffer, 0, n);
            }
            actual = HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchFileException e) {
            forget(blob.key());
            return false;
        }
        if (!actual.equals(blob.sha256())) {
            LOG.error("cache entry {} was altered on disk (sha256 {} instead of {}); removing it so it is fetched again",
                    blob.key(), actual, blob.sha256());
            remove(blob.key());
            return false;
        }
        return true;
    }

    /** Hashes every committed blob, removing those whose content no longer matches. */
    public VerificationReport verifyAll() throws IOException {
        List<CacheKey> keys;
        synchronized (lock) {
            keys = new ArrayList<>(index.keySet());
        }
        List<CacheKey> removed = new ArrayList<>();
        for (CacheKey key : keys) {
            Optional<StoredBlob> blob = find(key);
            if (blob.isEmpty() || !contentMatches(blob.get())) {
                removed.add(key);
                continue;
            }
            verified.add(key);
        }
        return new VerificationReport(keys.size(), removed);
    }

    @Override
    public BlobWrite create(CacheKey key) throws IOException {
        Path target = path(key);
        long free = keepFreeSpace(null);
        if (free < minFreeBytes) {
            throw new InsufficientStorageException("the cache's file system has " + free + " bytes free, below the "
                    + minFreeBytes + " bytes it must keep, and evicting the archives nobody is reading cannot free enough");
        }
        Path temporary = tmp.resolve(UUID.randomUUID() + ".part");
        SeekableByteChannel channel = writeChannels.open(temporary);
        return new FileBlobWrite(key, target, temporary, channel);
    }

    @Override
    public void remove(CacheKey key) throws IOException {
        Path file = path(key);
        Files.deleteIfExists(sidecar(file));
        Files.deleteIfExists(file);
        verified.remove(key);
        known.remove(key);
        forget(key);
    }

    private void forget(CacheKey key) {
        synchronized (lock) {
            IndexEntry entry = index.remove(key);
            if (entry != null) {
                totalBytes -= entry.size;
            }
        }
    }

    @Override
    public List<BlobSummary> list() {
        synchronized (lock) {
            List<BlobSummary> summaries = new ArrayList<>(index.size());
            // Iterating an access-ordered map does not reorder it; get() would.
            index.forEach((key, entry) -> summaries.add(new BlobSummary(key, entry.size, entry.committedAt)));
            return summaries;
        }
    }

    @Override
    public long totalBytes() {
        synchronized (lock) {
            return totalBytes;
        }
    }

    @Override
    public int count() {
        synchronized (lock) {
            return index.size();
        }
    }

    @Override
    public long evictions() {
        synchronized (lock) {
            return evictions;
        }
    }

    private void evictIfNeeded() {
        List<CacheKey> victims = new ArrayList<>();
        synchronized (lock) {
            if (totalBytes <= maxBytes) {
                return;
            }
            Iterator<Map.Entry<CacheKey, IndexEntry>> eldest = index.entrySet().iterator();
            while (totalBytes > maxBytes && eldest.hasNext()) {
                Map.Entry<CacheKey, IndexEntry> entry = eldest.next();
                if (entry.getValue().readers > 0) {
                    continue;
                }
                eldest.remove();
                totalBytes -= entry.getValue().size;
                evictions++;
                victims.add(entry.getKey());
            }
        }
        deleteEvicted(victims, "to keep the archive cache under " + maxBytes + " bytes");
    }

    /** Deletes blobs already taken out of the index, with their sidecars and memos. */
    private void deleteEvicted(List<CacheKey> victims, String why) {
        for (CacheKey victim : victims) {
            try {
                Path file = path(victim);
                Files.deleteIfExists(sidecar(file));
                Files.deleteIfExists(file);
                verified.remove(victim);
                known.remove(victim);
                LOG.info("evicted {} {}", victim, why);
            } catch (IOException e) {
                LOG.warn("cannot evict {}: {}", victim, e.toString());
            }
        }
    }

    /**
     * Evicts least recently used blobs nobody reads (never {@code keep}) until the file system has
     * {@code minFreeBytes} free, provided that evicting them is enough; otherwise evicts nothing.
     *
     * @return the usable bytes afterwards
     */
    private long keepFreeSpace(CacheKey keep) throws IOException {
        if (minFreeBytes == 0) {
            return Long.MAX_VALUE;
        }
        long free = freeSpace.usableBytes();
        if (free >= minFreeBytes) {
            return free;
        }
        long needed = minFreeBytes - free;
        List<CacheKey> victims = new ArrayList<>();
        synchronized (lock) {
            long freed = 0;
            for (Map.Entry<CacheKey, IndexEntry> entry : index.entrySet()) {
                if (freed >= needed) {
                    break;
                }
                if (entry.getValue().readers == 0 && !entry.getKey().equals(keep)) {
                    victims.add(entry.getKey());
                    freed += entry.getValue().size;
                }
            }
            if (freed < needed) {
                return free;
            }
            for (CacheKey victim : victims) {
                totalBytes -= index.remove(victim).size;
                evictions++;
            }
        }
        deleteEvicted(victims, "to keep " + minFreeBytes + " bytes free on the cache's file system");
        return freeSpace.usableBytes();
    }

    private Path path(CacheKey key) {
        if (key.segments().get(key.segments().size() - 1).endsWith(SIDECAR_SUFFIX)) {
            throw new IllegalArgumentException("cache key " + key + " ends in " + SIDECAR_SUFFIX);
        }
        return key.resolveUnder(blobs);
    }

    private static Path sidecar(Path file) {
        return file.resolveSibling(file.getFileName() + SIDECAR_SUFFIX);
    }

    private static void moveAtomically(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("cannot commit " + to + " atomically: " + e.getMessage(), e);
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    private final class FileBlobWrite implements BlobWrite {
        private final CacheKey key;
        private final Path target;
        private final Path temporary;
        private final SeekableByteChannel channel;
        private long size;
        private Path current;
        private boolean finished;

        FileBlobWrite(CacheKey key, Path target, Path temporary, SeekableByteChannel channel) {
            this.key = key;
            this.target = target;
            this.temporary = temporary;
            this.channel = channel;
            this.current = temporary;
        }

        @Override
        public Path temporaryFile() {
            return temporary;
        }

        @Override
        public void write(ByteBuffer bytes) throws IOException {
            // Writes started above the watermark may use its upper half between them, never more: however many
            // archives are written at once, the disk is not filled under what is cached.
            if (minFreeBytes > 0 && freeSpace.usableBytes() - bytes.remaining() < minFreeBytes / 2) {
                throw new InsufficientStorageException("the cache's file system has " + freeSpace.usableBytes()
                        + " bytes free, less than half the " + minFreeBytes + " bytes it must keep; " + key
                        + " is not written further");
            }
            while (bytes.hasRemaining()) {
                size += channel.write(bytes);
            }
        }

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
                Path sidecarTemp = tmp.resolve(UUID.randomUUID() + ".part");
                try (SeekableByteChannel meta = writeChannels.open(sidecarTemp)) {
                    ByteBuffer line = ByteBuffer.wrap((sha256 + " " + size + "\n").getBytes(StandardCharsets.US_ASCII));
                    while (line.hasRemaining()) {
                        meta.write(line);
                    }
                    if (meta instanceof FileChannel file) {
                        file.force(false);
                    }
                } catch (IOException | RuntimeException e) {
                    Files.deleteIfExists(sidecarTemp);
                    throw e;
                }
                synchronized (this) {
                    moveAtomically(temporary, target);
                    current = target;
                }
                moveAtomically(sidecarTemp, sidecar(target));
                StoredBlob blob = new StoredBlob(key, target, size, sha256, now);
                verified.add(key);
                synchronized (lock) {
                    IndexEntry previous = index.put(key, new IndexEntry(size, now));
                    totalBytes += size - (previous == null ? 0 : previous.size);
                }
                evictIfNeeded();
                keepFreeSpace(key);
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
}
