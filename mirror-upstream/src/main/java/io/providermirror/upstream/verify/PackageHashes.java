package io.providermirror.upstream.verify;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.ZipEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;

/**
 * The CLI's provider package hashes.
 *
 * <p>{@code zh:} is the hex sha256 of the whole zip. {@code h1:} is Go's {@code dirhash.Hash1} over the
 * files the zip unpacks to: each file's name with the sha256 of its content, one line per file, sorted
 * byte-wise by UTF-8 name (not in Java's UTF-16 order), and the base64 sha256 of that summary. Directory
 * entries are not lines: Terraform unpacks the archive and hashes the resulting directory, which only holds
 * them as directories (checked against Terraform 1.11.4, see the test vectors).
 */
public final class PackageHashes {

    /**
     * Refuse archives that would take unreasonable work to hash (zip bombs). The defaults are far beyond any
     * real provider: the largest unpack to about 700 MB (one Go binary and a few text files), and Go binaries
     * compress 3 to 5 times; so at most 10,000 files, 2 GiB unpacked in all, and no file past its first MiB
     * unpacking to more than 100 times its compressed size. Sizes the zip declares are checked before
     * anything is inflated, and the bytes actually inflated are counted (declared sizes can lie).
     *
     * @param maxEntries most files in the archive
     * @param maxUncompressedBytes most bytes all files unpack to together
     * @param maxRatio most bytes a file may unpack to per compressed byte, once past {@link #RATIO_ALLOWANCE}
     */
    public record Limits(int maxEntries, long maxUncompressedBytes, int maxRatio) {
        /** What any file may unpack to before its compression ratio is judged (small text files compress well). */
        public static final long RATIO_ALLOWANCE = 1024 * 1024;

        public static final Limits DEFAULT = new Limits(10_000, 2L * 1024 * 1024 * 1024, 100);

        /** Limits with the default ratio. */
        public Limits(int maxEntries, long maxUncompressedBytes) {
            this(maxEntries, maxUncompressedBytes, DEFAULT.maxRatio());
        }

        public Limits {
            if (maxEntries <= 0 || maxUncompressedBytes <= 0 || maxRatio <= 0) {
                throw new IllegalArgumentException("limits: " + maxEntries + ", " + maxUncompressedBytes + ", "
                        + maxRatio + " (expected: all > 0)");
            }
        }

        /**
         * The most a zip of {@code zipBytes} may unpack to in all: the ratio applies to the archive as a whole too, so
         * entries that share one compressed stream (overlapping entries) cannot multiply it.
         */
        long budget(long zipBytes) {
            double byRatio = (double) maxRatio * zipBytes + RATIO_ALLOWANCE;
            return byRatio >= maxUncompressedBytes ? maxUncompressedBytes : (long) byRatio;
        }

        /** Whether {@code uncompressed} bytes from {@code compressed} is beyond the ratio. */
        boolean beyondRatio(long uncompressed, long compressed) {
            return uncompressed > RATIO_ALLOWANCE && uncompressed / (double) Math.max(compressed, 1) > maxRatio;
        }
    }

    private static final HexFormat HEX = HexFormat.of();

    private PackageHashes() {}

    /** {@code zh:} from a sha256 digest. */
    public static String zh(byte[] sha256) {
        return "zh:" + HEX.formatHex(sha256);
    }

    /** {@code zh:} from a lowercase hex sha256. */
    public static String zh(String sha256Hex) {
        return "zh:" + sha256Hex.toLowerCase(java.util.Locale.ROOT);
    }

    /** Computes {@code h1:} of a zip file with the default limits. */
    public static String h1(Path zip) throws IOException {
        return h1(zip, Limits.DEFAULT);
    }

    /** Computes {@code h1:} of a zip file, refusing archives beyond {@code limits}. */
    public static String h1(Path zip, Limits limits) throws IOException {
        try (FileChannel channel = FileChannel.open(zip, StandardOpenOption.READ)) {
            return h1(channel, limits);
        }
    }

    /** Computes {@code h1:} of the zip a channel reads (wherever its bytes are) with the default limits; closes it. */
    public static String h1(SeekableByteChannel zip) throws IOException {
        return h1(zip, Limits.DEFAULT);
    }

    /**
     * Computes {@code h1:} of the zip {@code channel} reads, refusing archives beyond {@code limits}; the channel
     * is read at any position and closed when done.
     */
    public static String h1(SeekableByteChannel zip, Limits limits) throws IOException {
        List<byte[]> lines = new ArrayList<>();
        long zipBytes = zip.size();
        long budget = limits.budget(zipBytes);
        long compressedTotal = 0;
        long uncompressed = 0;
        byte[] buffer = new byte[64 * 1024];
        MessageDigest entryDigest = sha256();
        try (ZipFile file = ZipFile.builder()
                .setSeekableByteChannel(zip)
                .setCharset(StandardCharsets.UTF_8)
                // Names as the CLI's zip reader sees them: never from Info-ZIP's Unicode path extra field.
                .setUseUnicodeExtraFields(false)
                .get()) {
            Enumeration<ZipArchiveEntry> entries = file.getEntries();
            while (entries.hasMoreElements()) {
                ZipArchiveEntry entry = entries.nextElement();
                if (entry.isDirectory()) {
                    continue;
                }
                if (lines.size() >= limits.maxEntries()) {
                    throw new IOException("zip has more than " + limits.maxEntries() + " entries");
                }
                // What the CLI can unpack and hash: stored or deflated entries with UTF-8 names, nothing else.
                if (entry.getMethod() != ZipEntry.STORED && entry.getMethod() != ZipEntry.DEFLATED) {
                    throw new IOException("zip entry " + printable(entry.getName()) + " uses compression method "
                            + entry.getMethod() + "; only stored and deflated entries can be installed");
                }
                String name = utf8(entry.getRawName());
                if (name.indexOf('\n') >= 0) {
                    throw new IOException("zip entry name contains a newline: " + name.replace("\n", "\\n"));
                }
                long declared = entry.getSize();
                long compressed = entry.getCompressedSize();
                compressedTotal += Math.max(compressed, 0);
                if (compressedTotal > zipBytes) {
                    throw new IOException("zip entries declare more compressed bytes than the " + zipBytes
                            + "-byte file holds: entries overlap (a zip bomb?)");
                }
                if (declared > limits.maxUncompressedBytes() - uncompressed) {
                    throw new IOException("zip expands to more than " + limits.maxUncompressedBytes()
                            + " bytes (its entry " + printable(name) + " declares " + declared + ")");
                }
                if (declared >= 0 && compressed >= 0 && limits.beyondRatio(declared, compressed)) {
                    throw new IOException(ratioMessage(name, declared, compressed, limits));
                }
                if (declared > budget - uncompressed) {
                    throw new IOException(wholeRatioMessage(budget, zipBytes, limits));
                }
                entryDigest.reset();
                long inflated = 0;
                try (InputStream in = file.getInputStream(entry)) {
                    int n;
                    while ((n = in.read(buffer)) > 0) {
                        uncompressed += n;
                        inflated += n;
                        if (uncompressed > limits.maxUncompressedBytes()) {
                            throw new IOException(
                                    "zip expands to more than " + limits.maxUncompressedBytes() + " bytes");
                        }
                        if (compressed >= 0 && limits.beyondRatio(inflated, compressed)) {
                            throw new IOException(ratioMessage(name, inflated, compressed, limits));
                        }
                        if (uncompressed > budget) {
                            throw new IOException(wholeRatioMessage(budget, zipBytes, limits));
                        }
                        entryDigest.update(buffer, 0, n);
                    }
                }
                String line = HEX.formatHex(entryDigest.digest()) + "  " + name + "\n";
                lines.add(line.getBytes(StandardCharsets.UTF_8));
            }
        }
        // Each line starts with 64 hex characters, so sorting the lines orders them by name; Go sorts the
        // names as byte strings, which for UTF-8 is unsigned byte order, not Java's UTF-16 order.
        lines.sort(PackageHashes::compareNamesOfLines);
        MessageDigest summary = sha256();
        for (byte[] line : lines) {
            summary.update(line);
        }
        return "h1:" + Base64.getEncoder().encodeToString(summary.digest());
    }

    private static String wholeRatioMessage(long budget, long zipBytes, Limits limits) {
        return "zip unpacks to more than " + budget + " bytes, over " + limits.maxRatio() + " times its " + zipBytes
                + " bytes; no provider compresses that well (a zip bomb?)";
    }

    private static String ratioMessage(String name, long uncompressed, long compressed, PackageHashes.Limits limits) {
        return "zip entry " + printable(name) + " unpacks to more than " + limits.maxRatio() + " times its "
                + compressed + " compressed bytes (" + uncompressed + " bytes and counting); no provider's files "
                + "compress that well (a zip bomb?)";
    }

    /** An entry name for a message: bounded, control characters escaped. */
    private static String printable(String name) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < name.length() && i < 200; i++) {
            char c = name.charAt(i);
            out.append(c < 0x20 || c == 0x7f ? String.format("\\x%02x", (int) c) : String.valueOf(c));
        }
        return "'" + out + (name.length() > 200 ? "...'" : "'");
    }

    /** An entry's name, which must be valid UTF-8 (a name that is not cannot be hashed as the CLI hashes it). */
    private static String utf8(byte[] rawName) throws IOException {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(rawName))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IOException("zip entry name is not UTF-8: " + HEX.formatHex(rawName), e);
        }
    }

    private static int compareNamesOfLines(byte[] a, byte[] b) {
        // Skip the 64-character hash and the two spaces; compare the names, then the newline-free rest.
        int offset = 66;
        return Arrays.compareUnsigned(a, offset, a.length - 1, b, offset, b.length - 1);
    }

    /** A fresh sha256 digest. */
    public static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
