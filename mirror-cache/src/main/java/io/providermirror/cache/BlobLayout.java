package io.providermirror.cache;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a {@link FileBlobStore} keeps what on disk, and the sidecar format: each blob is a file under
 * {@code archives/} at its key's path, beside a sidecar {@code <name>.meta} of one line, its sha256 and size;
 * both are written under {@code tmp/} (the same file system) and moved into place atomically.
 */
final class BlobLayout {

    /** What a sidecar records: the committed content's lowercase hex sha256 and size. */
    record Sidecar(String sha256, long size) {
        /** The sidecar's bytes, exactly as every version of the store has written them. */
        byte[] bytes() {
            return (sha256 + " " + size + "\n").getBytes(StandardCharsets.US_ASCII);
        }

        /** The sidecar {@code text} records; empty when it is not one (damaged, or written by something else). */
        static Optional<Sidecar> parse(String text) {
            Matcher m = SIDECAR.matcher(text);
            return m.matches() ? Optional.of(new Sidecar(m.group(1), Long.parseLong(m.group(2)))) : Optional.empty();
        }
    }

    /** What the disk holds at a key: nothing, a committed blob, or something damaged that must be removed. */
    sealed interface OnDisk {
        /** No sidecar: nothing was committed (or a commit was cut short before its last move). */
        record Absent() implements OnDisk {}

        /**
         * A blob that must not be served.
         *
         * @param problem what is wrong, for the log: "cache entry KEY PROBLEM; removing it"
         * @param severe whether it means something altered the cache, rather than a crash's leftovers
         */
        record Damaged(String problem, boolean severe) implements OnDisk {}

        record Committed(StoredBlob blob) implements OnDisk {}
    }

    static final String SIDECAR_SUFFIX = ".meta";
    private static final Pattern SIDECAR = Pattern.compile("([0-9a-f]{64}) ([0-9]{1,19})\\n?");

    private final Path blobs;
    private final Path tmp;

    BlobLayout(Path root) {
        this.blobs = root.resolve("archives");
        this.tmp = root.resolve("tmp");
    }

    /** Creates the directories the store writes to. */
    void createDirectories() throws IOException {
        Files.createDirectories(blobs);
        Files.createDirectories(tmp);
    }

    /** Where committed blobs live. */
    Path blobs() {
        return blobs;
    }

    /** Where blobs and sidecars are written before they are committed. */
    Path tmp() {
        return tmp;
    }

    /** A fresh name for a temporary file. */
    Path newTemporary() {
        return tmp.resolve(UUID.randomUUID() + ".part");
    }

    /** The file of the blob at {@code key}. */
    Path file(CacheKey key) {
        if (key.segments().get(key.segments().size() - 1).endsWith(SIDECAR_SUFFIX)) {
            throw new IllegalArgumentException("cache key " + key + " ends in " + SIDECAR_SUFFIX);
        }
        return key.resolveUnder(blobs);
    }

    /** The sidecar of the blob in {@code file}. */
    static Path sidecar(Path file) {
        return file.resolveSibling(file.getFileName() + SIDECAR_SUFFIX);
    }

    /** Whether {@code file} is a sidecar rather than a blob. */
    static boolean isSidecar(Path file) {
        return file.getFileName().toString().endsWith(SIDECAR_SUFFIX);
    }

    /** The blob a sidecar belongs to. */
    static Path blobOf(Path sidecar) {
        String name = sidecar.getFileName().toString();
        return sidecar.resolveSibling(name.substring(0, name.length() - SIDECAR_SUFFIX.length()));
    }

    /** The key of the blob in {@code file}, or null when its path is no valid key. */
    CacheKey keyOf(Path file) {
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

    /** Reads the blob at {@code key} from its sidecar and checks its file against it (size only, no hashing). */
    OnDisk read(CacheKey key) throws IOException {
        Path file = file(key);
        String meta;
        try {
            meta = Files.readString(sidecar(file), StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return new OnDisk.Absent();
        }
        Optional<Sidecar> sidecar = Sidecar.parse(meta);
        if (sidecar.isEmpty()) {
            return new OnDisk.Damaged("has an unreadable sidecar", false);
        }
        long size = sidecar.get().size();
        long actual;
        FileTime modified;
        try {
            actual = Files.size(file);
            modified = Files.getLastModifiedTime(file);
        } catch (NoSuchFileException e) {
            return new OnDisk.Damaged("lost its file", false);
        }
        if (actual != size) {
            return new OnDisk.Damaged("is " + actual + " bytes on disk but was committed with " + size, true);
        }
        return new OnDisk.Committed(new StoredBlob(key, size, sidecar.get().sha256(), modified.toInstant()));
    }

    /** Writes {@code sidecar} to {@code temporary} through {@code channels}, durably; nothing is left on failure. */
    static void writeSidecar(Sidecar sidecar, Path temporary, FileBlobStore.WriteChannels channels) throws IOException {
        try (SeekableByteChannel meta = channels.open(temporary)) {
            ByteBuffer line = ByteBuffer.wrap(sidecar.bytes());
            while (line.hasRemaining()) {
                meta.write(line);
            }
            if (meta instanceof FileChannel file) {
                file.force(false);
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temporary);
            throw e;
        }
    }

    /** Deletes the blob at {@code key} and its sidecar, the sidecar first so a half-deleted blob is not there. */
    void delete(CacheKey key) throws IOException {
        Path file = file(key);
        Files.deleteIfExists(sidecar(file));
        Files.deleteIfExists(file);
    }

    /** Moves {@code from} to {@code to} in one step, or fails: a commit is never half done. */
    static void moveAtomically(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("cannot commit " + to + " atomically: " + e.getMessage(), e);
        }
    }
}
