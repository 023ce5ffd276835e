package io.providermirror.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
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
 * symbolic links to any target, a tar entry's name given in the header a test chooses ({@link NameHeader}).
 */
public final class ModuleArchives {

    private ModuleArchives() {}

    /**
     * Where a tar entry's name is written: tar has three places for it, and a reader must treat them alike.
     */
    public enum NameHeader {
        /** The ustar header's name field (a name of up to 100 bytes). */
        USTAR,
        /** A PAX extended header's {@code path} record, before the entry (the ustar field holds a stand-in). */
        PAX,
        /** A PAX global header's {@code path} record, which applies to every entry after it. */
        PAX_GLOBAL,
        /** A GNU long name entry ({@code ././@LongLink}, type {@code L}) before the entry. */
        GNU_LONG_NAME
    }

    /**
     * One entry of an archive, its name written as given (no leading {@code /} taken off).
     *
     * @param name       the entry's name
     * @param content    a file's text, or null for a link
     * @param linkTarget a symbolic link's target, or null for a file
     * @param nameHeader where a tar writes the name; a zip has only one place and takes only {@link NameHeader#USTAR}
     */
    public record Entry(String name, String content, String linkTarget, NameHeader nameHeader) {

        /** A regular file. */
        public static Entry file(String name, String content) {
            return new Entry(name, content, null, NameHeader.USTAR);
        }

        /** A symbolic link to {@code target}: in a tar a link entry, in a zip a Unix symlink (its target as content). */
        public static Entry symlink(String name, String target) {
            return new Entry(name, null, target, NameHeader.USTAR);
        }

        /** This entry with its name written in {@code header} (in a tar; a zip refuses any but ustar). */
        public Entry namedIn(NameHeader header) {
            return new Entry(name, content, linkTarget, header);
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
        try (GZIPOutputStream gzip = new GZIPOutputStream(bytes);
                // One record a block: each record reaches gzip as it is written, so a header written beside the
                // tar stream (nameHeader) lands between the entries where it is written.
                TarArchiveOutputStream tar = new TarArchiveOutputStream(gzip, TarConstants.DEFAULT_RCDSIZE)) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            for (Entry file : entries) {
                String headerName = nameHeader(gzip, file);
                // preserveAbsolutePath: the entry is written with the name the test gave, a leading '/' included.
                TarArchiveEntry entry = file.isLink()
                        ? new TarArchiveEntry(headerName, TarConstants.LF_SYMLINK, true)
                        : new TarArchiveEntry(headerName, true);
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

    /**
     * Writes the header that carries {@code file}'s name, if it is not the ustar header's own field, as tar writers
     * do: an entry of its own before the file, written here byte for byte (commons-compress writes no PAX global
     * {@code path}); returns the name for the ustar field: the name, or a stand-in.
     */
    private static String nameHeader(OutputStream tar, Entry file) throws IOException {
        byte[] data;
        TarArchiveEntry header;
        switch (file.nameHeader()) {
            case USTAR:
                return file.name();
            case PAX, PAX_GLOBAL:
                data = paxRecord("path", file.name());
                header = new TarArchiveEntry(
                        "./PaxHeaders/stand-in",
                        file.nameHeader() == NameHeader.PAX
                                ? TarConstants.LF_PAX_EXTENDED_HEADER_LC
                                : TarConstants.LF_PAX_GLOBAL_EXTENDED_HEADER);
                break;
            case GNU_LONG_NAME:
                data = (file.name() + "\0").getBytes(StandardCharsets.UTF_8);
                header = new TarArchiveEntry(TarConstants.GNU_LONGLINK, TarConstants.LF_GNUTYPE_LONGNAME);
                break;
            default:
                throw new IllegalArgumentException("name header: " + file.nameHeader());
        }
        header.setSize(data.length);
        header.setModTime(0);
        byte[] record = new byte[TarConstants.DEFAULT_RCDSIZE];
        header.writeEntryHeader(record);
        tar.write(record);
        tar.write(data);
        tar.write(
                new byte
                        [(TarConstants.DEFAULT_RCDSIZE - data.length % TarConstants.DEFAULT_RCDSIZE)
                                % TarConstants.DEFAULT_RCDSIZE]);
        return "stand-in";
    }

    /** One PAX record, {@code "<length> <key>=<value>\n"}, its length counting itself. */
    private static byte[] paxRecord(String key, String value) {
        int rest = 1 + key.length() + 1 + value.getBytes(StandardCharsets.UTF_8).length + 1;
        int length = rest + Integer.toString(rest).length();
        if (Integer.toString(length).length() != Integer.toString(rest).length()) {
            length++;
        }
        return (length + " " + key + "=" + value + "\n").getBytes(StandardCharsets.UTF_8);
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
                if (file.nameHeader() != NameHeader.USTAR) {
                    throw new IllegalArgumentException("a zip has one place for a name: " + file);
                }
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
