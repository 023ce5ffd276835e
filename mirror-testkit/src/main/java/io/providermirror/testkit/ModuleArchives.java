package io.providermirror.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.archivers.zip.UnixStat;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;

/**
 * Module source archives for tests, as origins publish them: a {@code .tar.gz} or a {@code .zip} of the files a
 * test gives (relative path to text content, subdirectories included), in path order so equal files make equal
 * bytes; or, for hostile archives, of {@link Entry entries} exactly as given: names with a leading {@code /} kept,
 * symbolic links to any target.
 */
public final class ModuleArchives {

    private ModuleArchives() {}

    /**
     * One entry of an archive, its name written as given (no leading {@code /} taken off).
     *
     * @param name       the entry's name
     * @param content    a file's text, or null for a link
     * @param linkTarget a symbolic link's target, or null for a file
     */
    public record Entry(String name, String content, String linkTarget) {

        /** A regular file. */
        public static Entry file(String name, String content) {
            return new Entry(name, content, null);
        }

        /** A symbolic link to {@code target}: in a tar a link entry, in a zip a Unix symlink (its target as content). */
        public static Entry symlink(String name, String target) {
            return new Entry(name, null, target);
        }

        boolean isLink() {
            return linkTarget != null;
        }
    }

    /** A gzipped tar of {@code files}. */
    public static byte[] tarGz(Map<String, String> files) {
        return tarGz(entries(files));
    }

    /** A gzipped tar of {@code entries}, in the order given. */
    public static byte[] tarGz(List<Entry> entries) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(new GZIPOutputStream(bytes))) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            for (Entry file : entries) {
                // preserveAbsolutePath: the entry is written with the name the test gave, a leading '/' included.
                TarArchiveEntry entry = file.isLink()
                        ? new TarArchiveEntry(file.name(), TarConstants.LF_SYMLINK, true)
                        : new TarArchiveEntry(file.name(), true);
                byte[] content = file.isLink() ? new byte[0] : file.content().getBytes(StandardCharsets.UTF_8);
                if (file.isLink()) {
                    entry.setLinkName(file.linkTarget());
                    entry.setMode(0777);
                } else {
                    entry.setSize(content.length);
                    entry.setMode(0644);
                }
                entry.setModTime(0);
                tar.putArchiveEntry(entry);
                tar.write(content);
                tar.closeArchiveEntry();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** A zip of {@code files}. */
    public static byte[] zip(Map<String, String> files) {
        return zip(entries(files));
    }

    /** A zip of {@code entries}, in the order given. */
    public static byte[] zip(List<Entry> entries) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipArchiveOutputStream zip = new ZipArchiveOutputStream(bytes)) {
            for (Entry file : entries) {
                ZipArchiveEntry entry = new ZipArchiveEntry(file.name());
                entry.setTime(0);
                if (file.isLink()) {
                    // Info-ZIP's way: made on Unix, the mode's file type a link, the target as the content.
                    entry.setUnixMode(UnixStat.LINK_FLAG | 0777);
                }
                zip.putArchiveEntry(entry);
                zip.write((file.isLink() ? file.linkTarget() : file.content()).getBytes(StandardCharsets.UTF_8));
                zip.closeArchiveEntry();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static List<Entry> entries(Map<String, String> files) {
        return new TreeMap<>(files)
                .entrySet().stream()
                        .map(file -> Entry.file(file.getKey(), file.getValue()))
                        .toList();
    }
}
