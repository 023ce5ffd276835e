package io.providermirror.upstream.git;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * What {@link GitSource#fetch} got: the commit the ref resolved to (40 hex digits) and the bare repository that
 * holds it (no working tree; {@link TreeArchive} packs the commit's tree from its objects). Closing it deletes the
 * repository.
 */
public record FetchedSource(String commitId, Path repository) implements AutoCloseable {

    @Override
    public void close() {
        deleteTree(repository);
    }

    /** Deletes {@code root} and everything beneath it, as far as it can (a repository left by a crashed run). */
    public static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + root, e);
        }
    }
}
