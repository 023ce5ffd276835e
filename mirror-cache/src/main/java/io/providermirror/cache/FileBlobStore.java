package io.providermirror.cache;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link BlobStore} on the local file system. Each blob is a file with a small sidecar file holding its
 * sha256 and size; both are written through a temporary file in the store's own {@code tmp/} directory
 * (same file system) and moved into place atomically, the blob first and its sidecar last, so a blob
 * without a sidecar (a crash between the two moves) is simply not there.
 */
public final class FileBlobStore implements BlobStore {

    private static final Logger LOG = LoggerFactory.getLogger(FileBlobStore.class);
    private static final String SIDECAR_SUFFIX = ".meta";
    private static final Pattern SIDECAR = Pattern.compile("([0-9a-f]{64}) ([0-9]{1,19})\\n?");

    private final Path blobs;
    private final Path tmp;
    private final Clock clock;

    /**
     * Opens (creating) a store beneath {@code root}, removing temporary files that a previous process
     * left behind.
     */
    public FileBlobStore(Path root, Clock clock) throws IOException {
        this.blobs = root.resolve("archives");
        this.tmp = root.resolve("tmp");
        this.clock = clock;
        Files.createDirectories(blobs);
        Files.createDirectories(tmp);
        removeTemporaryFiles();
    }

    private void removeTemporaryFiles() throws IOException {
        try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(tmp)) {
            for (Path leftover : leftovers) {
                LOG.info("removing unfinished download {} left by an earlier run", leftover.getFileName());
                Files.deleteIfExists(leftover);
            }
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
        var m = SIDECAR.matcher(meta);
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
            LOG.warn("cache entry {} is {} bytes on disk but was committed with {}; removing it", key, actual, size);
            remove(key);
            return Optional.empty();
        }
        return Optional.of(new StoredBlob(key, file, size, m.group(1), modified.toInstant()));
    }

    @Override
    public BlobWrite create(CacheKey key) throws IOException {
        Path target = path(key);
        Path temporary = tmp.resolve(UUID.randomUUID() + ".part");
        FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        return new FileBlobWrite(key, target, temporary, channel);
    }

    @Override
    public void remove(CacheKey key) throws IOException {
        Path file = path(key);
        Files.deleteIfExists(sidecar(file));
        Files.deleteIfExists(file);
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

    private final class FileBlobWrite implements BlobWrite {
        private final CacheKey key;
        private final Path target;
        private final Path temporary;
        private final FileChannel channel;
        private long size;
        private Path current;
        private boolean finished;

        FileBlobWrite(CacheKey key, Path target, Path temporary, FileChannel channel) {
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
                channel.force(false);
                channel.close();
                Files.createDirectories(target.getParent());
                Instant now = clock.instant();
                Files.setLastModifiedTime(temporary, FileTime.from(now));
                Path sidecarTemp = tmp.resolve(UUID.randomUUID() + ".part");
                try (FileChannel meta = FileChannel.open(sidecarTemp, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE)) {
                    meta.write(ByteBuffer.wrap((sha256 + " " + size + "\n").getBytes(StandardCharsets.US_ASCII)));
                    meta.force(false);
                }
                synchronized (this) {
                    moveAtomically(temporary, target);
                    current = target;
                }
                moveAtomically(sidecarTemp, sidecar(target));
                return new StoredBlob(key, target, size, sha256, now);
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
                Files.deleteIfExists(temporary);
            } catch (IOException e) {
                LOG.warn("cannot remove temporary file {} of {}: {}", temporary, key, e.toString());
            }
        }
    }
}
