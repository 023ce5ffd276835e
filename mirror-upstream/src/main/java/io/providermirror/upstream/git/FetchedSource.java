package io.providermirror.upstream.git;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A checkout made by {@link GitSource#fetch}: the commit the ref resolved to (40 hex digits) and the working tree
 * (with its {@code .git}, which {@link TreeArchive} leaves out). Closing it deletes the tree.
 */
public record FetchedSource(String commitId, Path tree) implements AutoCloseable {

    @Override
    public void close() {
        deleteTree(tree);
    }

    /** Deletes {@code root} and everything beneath it, as far as it can (a clone left by a crashed run). */
    public static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the checkout " + root, e);
        }
    }
}
