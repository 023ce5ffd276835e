package io.providermirror.upstream.verify;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.Optional;
import org.apache.commons.compress.archivers.ArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

/**
 * Reads a module archive from an origin before the mirror keeps it, as hostile: at most {@code maxEntries}
 * entries and {@code maxBytes} unpacked (counted as the bytes come out, not as the headers claim), and no entry
 * name or link target (a tar link's, or a zip Unix symlink's content) that is absolute or climbs out with
 * {@code ..}, a tar name read as its header wrote it (a PAX {@code path} or GNU long name included: {@link
 * TarHeaderNames}). What a client unpacks from a kept archive is therefore bounded, whatever the origin sent. Formats it
 * cannot read are refused.
 */
public final class ModuleArchiveCheck {

    /** The longest link target read from a zip entry: longer than any path a system resolves (PATH_MAX). */
    private static final int MAX_LINK_TARGET = 4096;

    private ModuleArchiveCheck() {}

    /** Why {@code archive} (of {@code type}) must not be kept, if it must not; reads it from the start. */
    public static Optional<String> problem(SeekableByteChannel archive, ArchiveType type, ArchiveLimits limits)
            throws IOException {
        archive.position(0);
        switch (type) {
            case ZIP:
                return zip(archive, limits);
            case TAR_GZ, TGZ:
                return tar(
                        () -> GzipCompressorInputStream.builder()
                                .setInputStream(buffered(archive))
                                .setDecompressConcatenated(true)
                                .get(),
                        limits);
            case TAR_BZ2, TAR_TBZ2:
                return tar(() -> new BZip2CompressorInputStream(buffered(archive), true), limits);
            default:
                return Optional.of("the mirror does not unpack ." + type.extension()
                        + " archives to check them; publish the module as .tar.gz or .zip");
        }
    }

    private static InputStream buffered(SeekableByteChannel archive) {
        return new BufferedInputStream(Channels.newInputStream(archive), 64 * 1024);
    }

    /** Opens the decompressed stream; a stream that is not of its format fails here, as unreadable. */
    @FunctionalInterface
    private interface Decompressed {
        InputStream open() throws IOException;
    }

    private static Optional<String> tar(Decompressed decompressed, ArchiveLimits limits) {
        try (TarHeaderNames tar = new TarHeaderNames(decompressed.open())) {
            int entries = 0;
            long total = 0;
            byte[] buffer = new byte[64 * 1024];
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Optional<String> problem = entryProblem(entry, ++entries, limits);
                // The name as its extended header gave it, before commons-compress took a leading '/' off.
                for (String written : tar.takeNames()) {
                    problem = problem.or(() -> nameProblem(written, "entry name"));
                }
                if (problem.isEmpty() && (entry.isSymbolicLink() || entry.isLink())) {
                    problem = nameProblem(entry.getLinkName(), "link target");
                }
                if (problem.isPresent()) {
                    return problem;
                }
                int read;
                while ((read = tar.read(buffer)) != -1) {
                    total += read;
                    if (total > limits.maxBytes()) {
                        return Optional.of(tooLarge(limits));
                    }
                }
            }
            return Optional.empty();
        } catch (IOException | IllegalArgumentException e) {
            return Optional.of("not a readable archive: " + e.getMessage());
        }
    }

    private static Optional<String> zip(SeekableByteChannel archive, ArchiveLimits limits) throws IOException {
        try (ZipFile zip = ZipFile.builder()
                .setSeekableByteChannel(archive)
                .setUseUnicodeExtraFields(false)
                .get()) {
            int entries = 0;
            long total = 0;
            byte[] buffer = new byte[64 * 1024];
            for (Enumeration<ZipArchiveEntry> all = zip.getEntries(); all.hasMoreElements(); ) {
                ZipArchiveEntry entry = all.nextElement();
                Optional<String> problem = entryProblem(entry, ++entries, limits);
                if (problem.isPresent()) {
                    return problem;
                }
                if (entry.isDirectory()) {
                    continue;
                }
                if (entry.isUnixSymlink()) {
                    // A zip keeps a Unix link's target as the entry's content: the same rules as a tar link's.
                    problem = linkTargetProblem(zip, entry);
                    if (problem.isPresent()) {
                        return problem;
                    }
                }
                try (InputStream content = zip.getInputStream(entry)) {
                    int read;
                    while ((read = content.read(buffer)) != -1) {
                        total += read;
                        if (total > limits.maxBytes()) {
                            return Optional.of(tooLarge(limits));
                        }
                    }
                }
            }
            return Optional.empty();
        } catch (IOException | IllegalArgumentException e) {
            return Optional.of("not a readable zip archive: " + e.getMessage());
        }
    }

    private static Optional<String> linkTargetProblem(ZipFile zip, ZipArchiveEntry link) throws IOException {
        try (InputStream content = zip.getInputStream(link)) {
            byte[] target = content.readNBytes(MAX_LINK_TARGET + 1);
            if (target.length > MAX_LINK_TARGET) {
                return Optional.of(
                        "a link target longer than " + MAX_LINK_TARGET + " bytes (" + printable(link.getName()) + ")");
            }
            return nameProblem(new String(target, StandardCharsets.UTF_8), "link target");
        }
    }

    private static Optional<String> entryProblem(ArchiveEntry entry, int entries, ArchiveLimits limits) {
        if (entries > limits.maxEntries()) {
            return Optional.of("more than " + limits.maxEntries() + " entries");
        }
        return nameProblem(entry.getName(), "entry name");
    }

    private static Optional<String> nameProblem(String name, String what) {
        String normal = name.replace('\\', '/');
        if (normal.startsWith("/") || normal.matches("^[A-Za-z]:.*")) {
            return Optional.of("an absolute " + what + " (" + printable(name) + ")");
        }
        for (String segment : normal.split("/")) {
            if (segment.equals("..")) {
                return Optional.of("a " + what + " that climbs out with '..' (" + printable(name) + ")");
            }
        }
        return Optional.empty();
    }

    /** {@code name} with control characters replaced and cut at 200 characters, for a message. */
    private static String printable(String name) {
        String cut = name.length() > 200 ? name.substring(0, 200) + "..." : name;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }

    private static String tooLarge(ArchiveLimits limits) {
        return "more than " + limits.maxBytes() + " bytes unpacked";
    }
}
