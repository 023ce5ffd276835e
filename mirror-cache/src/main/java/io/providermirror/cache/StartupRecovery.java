package io.providermirror.cache;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@link FileBlobStore} does when it opens a directory an earlier process may have left in any state:
 * unfinished writes are removed, and so are blobs that were never committed (no valid sidecar) and sidecars
 * whose blob is gone; what is left is what the index starts from, least recently modified first.
 */
final class StartupRecovery {

    /** Reads one committed blob, removing it when it does not match its sidecar. */
    @FunctionalInterface
    interface CommittedBlobs {
        Optional<StoredBlob> find(CacheKey key) throws IOException;
    }

    /** A committed blob found on disk, and when it was last written (its place in the LRU order). */
    /** A committed blob: its size, its file's modification time, and the latest of that and its access time. */
    record Found(CacheKey key, long size, FileTime modified, FileTime used) {}

    private static final Logger LOG = LoggerFactory.getLogger(StartupRecovery.class);

    private final BlobLayout layout;
    private final CommittedBlobs committed;

    StartupRecovery(BlobLayout layout, CommittedBlobs committed) {
        this.layout = layout;
        this.committed = committed;
    }

    /** Cleans up after an earlier process and lists the committed blobs, least recently modified first. */
    List<Found> recover() throws IOException {
        removeTemporaryFiles();
        return committedBlobs();
    }

    private void removeTemporaryFiles() throws IOException {
        try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(layout.tmp())) {
            for (Path leftover : leftovers) {
                LOG.info("removing unfinished download {} left by an earlier run", leftover.getFileName());
                Files.deleteIfExists(leftover);
            }
        }
    }

    private List<Found> committedBlobs() throws IOException {
        Path blobs = layout.blobs();
        List<Found> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(blobs)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                if (BlobLayout.isSidecar(file)) {
                    if (!Files.exists(BlobLayout.blobOf(file))) {
                        LOG.warn("removing the sidecar {} whose archive is gone", blobs.relativize(file));
                        Files.deleteIfExists(file);
                    }
                    continue;
                }
                CacheKey key = layout.keyOf(file);
                Optional<StoredBlob> blob = key == null ? Optional.empty() : committed.find(key);
                if (blob.isEmpty()) {
                    if (Files.exists(file)) {
                        LOG.warn(
                                "removing {}: it has no valid sidecar, so it was never committed",
                                blobs.relativize(file));
                        Files.deleteIfExists(file);
                    }
                    continue;
                }
                java.nio.file.attribute.BasicFileAttributes times =
                        Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class);
                FileTime used = times.lastAccessTime().compareTo(times.lastModifiedTime()) > 0
                        ? times.lastAccessTime()
                        : times.lastModifiedTime();
                found.add(new Found(key, blob.get().size(), times.lastModifiedTime(), used));
            }
        }
        found.sort(Comparator.comparing(Found::modified));
        return found;
    }
}
