package io.providermirror.cache;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.FileVisitor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.EnumSet;

/**
 * The start-up check that a cache directory holds only directories and regular files. The mirror deletes
 * leftovers in {@code tmp/}, removes files it cannot account for and writes archives under {@code archives/}:
 * a symbolic link in there (a {@code tmp/} pointing at {@code /etc}, say) would make it delete or overwrite
 * files elsewhere, so it refuses to start instead of following one. The cache directory itself may be a
 * link: it is resolved once, and everything below it is checked.
 */
public final class CacheDirectoryCheck {

    private CacheDirectoryCheck() {}

    /**
     * Walks {@code cacheDirectory} without following links.
     *
     * @throws IOException naming the first symbolic link (or other special file) found below it
     */
    public static void refuseLinks(Path cacheDirectory) throws IOException {
        Path root = cacheDirectory.toRealPath();
        Files.walkFileTree(
                root, EnumSet.noneOf(java.nio.file.FileVisitOption.class), Integer.MAX_VALUE, new FileVisitor<>() {
                    @Override
                    public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                        if (attributes.isSymbolicLink()) {
                            throw new IOException("the cache directory " + root + " holds a symbolic link: " + file
                                    + " -> " + readLink(file) + ". The mirror follows no link inside its cache "
                                    + "directory (it deletes and writes files there); remove the link, or point "
                                    + "cache.directory itself at the other place");
                        }
                        if (attributes.isOther()) {
                            throw new IOException("the cache directory " + root + " holds " + file + ", which is "
                                    + "neither a regular file nor a directory; remove it");
                        }
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                        throw new IOException("cannot check the cache directory " + root + " at " + file + ": " + e, e);
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                        if (e != null) {
                            throw e;
                        }
                        return FileVisitResult.CONTINUE;
                    }
                });
    }

    private static String readLink(Path link) {
        try {
            return Files.readSymbolicLink(link).toString();
        } catch (IOException | UnsupportedOperationException e) {
            return "?";
        }
    }
}
