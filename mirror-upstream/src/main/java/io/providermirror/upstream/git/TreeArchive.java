package io.providermirror.upstream.git;

import io.providermirror.upstream.verify.ArchiveLimits;
import java.io.IOException;
import java.io.OutputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipParameters;
import org.eclipse.jgit.lib.AnyObjectId;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.CoreConfig.EolStreamType;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.util.io.EolStreamTypeUtil;

/**
 * Packs a commit's tree into a {@code .tar.gz} straight from the object database (no checkout): the entries are
 * walked and counted first ({@link TreeEntries}), so a tree over a limit is refused before a byte is written, then
 * each file is streamed from its object. The bytes depend only on the tree's names, contents (as a checkout
 * converts them by the tree's {@code .gitattributes}), executable bits and symlink targets: entries sorted by path,
 * a fixed modification time, owner 0/0 without names, modes 0644/0755 (directories 0755), a gzip header without
 * time or name. Symlinks are kept as symlinks when their target stays inside the tree; any other is refused.
 */
public final class TreeArchive {

    /** The modification time of every entry (and of the gzip header): the epoch. */
    static final long FIXED_MTIME_MILLIS = 0L;

    private static final int MODE_FILE = 0100644;
    private static final int MODE_EXECUTABLE = 0100755;
    private static final int MODE_DIRECTORY = 040755;
    private static final int MODE_SYMLINK = 0120777;
    /** gzip's "unknown" operating system, so the header does not depend on the JDK that wrote it. */
    private static final int GZIP_OS_UNKNOWN = 255;

    private TreeArchive() {}

    /** A tree the archive refuses: over a limit, a name a checkout refuses, or a symlink leaving the tree. */
    public static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    /**
     * Writes the tree of {@code fetched}'s commit as a {@code .tar.gz} to {@code out} (not closed) within
     * {@code limits}.
     *
     * @throws Refused when the tree exceeds the limits, holds a name a checkout refuses or an escaping symlink,
     *     with nothing written to {@code out}
     * @throws IOException when the repository cannot be read
     */
    public static PackedTree write(FetchedSource fetched, OutputStream out, ArchiveLimits limits) throws IOException {
        try (Repository repository = new FileRepositoryBuilder()
                .setGitDir(fetched.repository().toFile())
                .setMustExist(true)
                .build()) {
            return write(repository, ObjectId.fromString(fetched.commitId()), out, limits);
        }
    }

    /** As {@link #write(FetchedSource, OutputStream, ArchiveLimits)}, for a commit of an open repository. */
    static PackedTree write(Repository repository, AnyObjectId commit, OutputStream out, ArchiveLimits limits)
            throws IOException {
        try (ObjectReader reader = repository.newObjectReader()) {
            List<TreeEntries.Entry> entries = TreeEntries.of(reader, commit, limits);
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
                for (TreeEntries.Entry entry : entries) {
                    writeEntry(tar, reader, entry);
                }
                tar.finish();
            }
            return new PackedTree(HexFormat.of().formatHex(sha256.digest()), counted.count, entries.size());
        }
    }

    private static void writeEntry(TarArchiveOutputStream tar, ObjectReader reader, TreeEntries.Entry entry)
            throws IOException {
        switch (entry.kind()) {
            case DIRECTORY -> {
                tar.putArchiveEntry(newEntry(entry.name() + "/", TarConstants.LF_DIR, MODE_DIRECTORY));
                tar.closeArchiveEntry();
            }
            case SYMLINK -> {
                TarArchiveEntry link = newEntry(entry.name(), TarConstants.LF_SYMLINK, MODE_SYMLINK);
                link.setLinkName(entry.linkTarget());
                tar.putArchiveEntry(link);
                tar.closeArchiveEntry();
            }
            case FILE, EXECUTABLE -> {
                TarArchiveEntry file = newEntry(
                        entry.name(),
                        TarConstants.LF_NORMAL,
                        entry.kind() == TreeEntries.Kind.EXECUTABLE ? MODE_EXECUTABLE : MODE_FILE);
                file.setSize(entry.size());
                tar.putArchiveEntry(file);
                CountingOutputStream content = new CountingOutputStream(new NonClosingOutputStream(tar));
                try (OutputStream converted = entry.eol() == EolStreamType.DIRECT
                        ? content
                        : EolStreamTypeUtil.wrapOutputStream(content, entry.eol())) {
                    reader.open(entry.blob(), Constants.OBJ_BLOB).copyTo(converted);
                }
                if (content.count != entry.size()) {
                    throw new IOException(entry.name() + " changed while it was packed");
                }
                tar.closeArchiveEntry();
            }
        }
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

    /** Keeps the stream beneath open when the stream over it closes. */
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
