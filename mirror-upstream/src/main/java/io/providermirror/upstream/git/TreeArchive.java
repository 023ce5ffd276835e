package io.providermirror.upstream.git;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipParameters;

/**
 * Packs a directory tree (a checkout) into a {@code .tar.gz} that depends only on the tree's names, contents,
 * executable bits and symlink targets: {@code .git} left out, entries sorted by path, a fixed modification
 * time, owner 0/0 without names, modes 0644/0755 (directories 0755), a gzip header without time or name. Symlinks
 * are kept as symlinks when their target stays inside the tree; any other symlink is refused.
 */
public final class TreeArchive {

    /** The modification time of every entry (and of the gzip header): the epoch. */
    static final long FIXED_MTIME_MILLIS = 0L;

    private static final String GIT_DIRECTORY = ".git";
    private static final int MODE_FILE = 0100644;
    private static final int MODE_EXECUTABLE = 0100755;
    private static final int MODE_DIRECTORY = 040755;
    private static final int MODE_SYMLINK = 0120777;
    /** gzip's "unknown" operating system, so the header does not depend on the JDK that wrote it. */
    private static final int GZIP_OS_UNKNOWN = 255;

    private TreeArchive() {}

    /**
     * Writes {@code tree} as a {@code .tar.gz} to {@code out} (not closed) within {@code limits}.
     *
     * @throws IOException when the tree cannot be read, holds an escaping symlink or exceeds the limits
     */
    public static PackedTree write(Path tree, OutputStream out, ArchiveLimits limits) throws IOException {
        Path root = tree.toRealPath();
        List<Path> entries = collect(root, limits);
        MessageDigest sha256 = sha256();
        CountingOutputStream counted = new CountingOutputStream(out);
        GzipParameters gzip = new GzipParameters();
        gzip.setModificationTime(FIXED_MTIME_MILLIS);
        gzip.setOperatingSystem(GZIP_OS_UNKNOWN);
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(new GzipCompressorOutputStream(
                new DigestOutputStream(new NonClosingOutputStream(counted), sha256), gzip))) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            tar.setAddPaxHeadersForNonAsciiNames(true);
            long contentBytes = 0;
            for (Path path : entries) {
                contentBytes += writeEntry(tar, root, path, limits.maxBytes() - contentBytes);
            }
            tar.finish();
        }
        return new PackedTree(HexFormat.of().formatHex(sha256.digest()), counted.count, entries.size());
    }

    private static List<Path> collect(Path root, ArchiveLimits limits) throws IOException {
        List<Path> entries = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : (Iterable<Path>) walk::iterator) {
                if (path.equals(root) || isUnderGit(root.relativize(path))) {
                    continue;
                }
                entries.add(path);
                if (entries.size() > limits.maxEntries()) {
                    throw new IOException("the tree holds more than " + limits.maxEntries() + " entries");
                }
            }
        }
        entries.sort(Comparator.comparing(path -> entryName(root, path)));
        return entries;
    }

    private static boolean isUnderGit(Path relative) {
        for (Path part : relative) {
            if (part.toString().equals(GIT_DIRECTORY)) {
                return true;
            }
        }
        return false;
    }

    private static String entryName(Path root, Path path) {
        return root.relativize(path).toString().replace(path.getFileSystem().getSeparator(), "/");
    }

    /** Writes one entry; returns the content bytes it added. */
    private static long writeEntry(TarArchiveOutputStream tar, Path root, Path path, long bytesLeft)
            throws IOException {
        BasicFileAttributes attributes =
                Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        String name = entryName(root, path);
        if (attributes.isSymbolicLink()) {
            Path target = Files.readSymbolicLink(path);
            Path resolved = path.getParent().resolve(target).normalize();
            if (target.isAbsolute() || !resolved.startsWith(root) || isUnderGit(root.relativize(resolved))) {
                throw new IOException("the symlink " + name + " points outside the tree: " + target);
            }
            TarArchiveEntry entry = newEntry(name, TarConstants.LF_SYMLINK, MODE_SYMLINK);
            entry.setLinkName(target.toString().replace(path.getFileSystem().getSeparator(), "/"));
            tar.putArchiveEntry(entry);
            tar.closeArchiveEntry();
            return 0;
        }
        if (attributes.isDirectory()) {
            tar.putArchiveEntry(newEntry(name + "/", TarConstants.LF_DIR, MODE_DIRECTORY));
            tar.closeArchiveEntry();
            return 0;
        }
        if (!attributes.isRegularFile()) {
            throw new IOException(name + " is neither a file, a directory nor a symlink");
        }
        long size = attributes.size();
        if (size > bytesLeft) {
            throw new IOException("the tree's files exceed the limit on total bytes at " + name);
        }
        TarArchiveEntry entry =
                newEntry(name, TarConstants.LF_NORMAL, Files.isExecutable(path) ? MODE_EXECUTABLE : MODE_FILE);
        entry.setSize(size);
        tar.putArchiveEntry(entry);
        try (InputStream in = Files.newInputStream(path, LinkOption.NOFOLLOW_LINKS)) {
            long copied = in.transferTo(tar);
            if (copied != size) {
                throw new IOException(name + " changed while it was packed");
            }
        }
        tar.closeArchiveEntry();
        return size;
    }

    private static TarArchiveEntry newEntry(String name, byte linkFlag, int mode) {
        TarArchiveEntry entry = new TarArchiveEntry(name, linkFlag);
        entry.setMode(mode);
        entry.setModTime(FIXED_MTIME_MILLIS);
        entry.setUserId(0);
        entry.setGroupId(0);
        entry.setUserName("");
        entry.setGroupName("");
        return entry;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /** Counts what passes through, so the archive's size is known without a second pass. */
    private static final class CountingOutputStream extends java.io.FilterOutputStream {
        private long count;

        CountingOutputStream(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            count += len;
        }
    }

    /** Keeps the caller's stream open when the tar and gzip streams close. */
    private static final class NonClosingOutputStream extends java.io.FilterOutputStream {
        NonClosingOutputStream(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            out.flush();
        }
    }
}
