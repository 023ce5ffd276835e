package io.providermirror.cache;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** A {@link DocumentStore} of files beneath {@code <root>/metadata}, written through {@code <root>/tmp}. */
public final class FileDocumentStore implements DocumentStore {

    private final Path documents;
    private final Path tmp;
    private final Clock clock;

    public FileDocumentStore(Path root, Clock clock) throws IOException {
        this.documents = root.resolve("metadata");
        this.tmp = root.resolve("tmp");
        this.clock = clock;
        Files.createDirectories(documents);
        Files.createDirectories(tmp);
    }

    @Override
    public Optional<StoredDocument> read(CacheKey key) throws IOException {
        Path file = key.resolveUnder(documents);
        try {
            FileTime stored = Files.getLastModifiedTime(file);
            return Optional.of(new StoredDocument(Files.readAllBytes(file), stored.toInstant()));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    @Override
    public StoredDocument write(CacheKey key, byte[] content) throws IOException {
        return write(key, content, clock.instant());
    }

    @Override
    public void delete(CacheKey key) throws IOException {
        Files.deleteIfExists(key.resolveUnder(documents));
    }

    @Override
    public List<CacheKey> list(CacheKey folder) throws IOException {
        Path directory = folder.resolveUnder(documents);
        List<CacheKey> keys = new ArrayList<>();
        if (!Files.isDirectory(directory)) {
            return keys;
        }
        try (var entries = Files.newDirectoryStream(directory, Files::isRegularFile)) {
            for (Path entry : entries) {
                List<String> segments = new ArrayList<>(folder.segments());
                segments.add(entry.getFileName().toString());
                keys.add(new CacheKey(segments));
            }
        }
        return keys;
    }

    /**
     * Stores the document at {@code key} as stored at {@code storedAt} rather than now: a copy of a document kept
     * elsewhere keeps the time it was stored there, which its freshness is judged by.
     */
    public StoredDocument write(CacheKey key, byte[] content, Instant storedAt) throws IOException {
        Path file = key.resolveUnder(documents);
        Files.createDirectories(file.getParent());
        Path temporary = tmp.resolve(UUID.randomUUID() + ".part");
        Instant now = storedAt;
        try {
            try (FileChannel channel =
                    FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(false);
            }
            Files.setLastModifiedTime(temporary, FileTime.from(now));
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.deleteIfExists(temporary);
            throw new IOException("cannot store " + key + " atomically: " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temporary);
            throw e;
        }
        return new StoredDocument(content.clone(), now);
    }
}
