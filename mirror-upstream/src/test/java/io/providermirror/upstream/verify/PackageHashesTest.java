package io.providermirror.upstream.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.apache.commons.compress.archivers.zip.UnicodePathExtraField;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

final class PackageHashesTest {

    @TempDir
    Path tmp;

    record Vector(String file, String h1, String zh) {}

    static Stream<Vector> terraformVectors() throws IOException {
        try (InputStream in = PackageHashesTest.class.getResourceAsStream("/hash-vectors/expected.txt")) {
            List<String> lines = new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .filter(l -> !l.isBlank() && !l.startsWith("#"))
                    .toList();
            assertThat(lines).hasSize(4);
            return lines.stream().map(l -> l.split(" ")).map(p -> new Vector(p[0], p[1], p[2]));
        }
    }

    private Path resource(String file) throws IOException {
        Path target = tmp.resolve(file);
        try (InputStream in = getClass().getResourceAsStream("/hash-vectors/" + file)) {
            Files.copy(in, target);
        }
        return target;
    }

    @ParameterizedTest
    @MethodSource("terraformVectors")
    void h1MatchesWhatTerraformComputed(Vector vector) throws IOException {
        assertThat(PackageHashes.h1(resource(vector.file()))).isEqualTo(vector.h1());
    }

    @ParameterizedTest
    @MethodSource("terraformVectors")
    void h1OfAZipInAnyChannelMatchesWhatTerraformComputed(Vector vector) throws IOException {
        byte[] zip = Files.readAllBytes(resource(vector.file()));
        // Not a file: what an object store's channel would be.
        try (var channel = new org.apache.commons.compress.utils.SeekableInMemoryByteChannel(zip)) {
            assertThat(PackageHashes.h1(channel)).isEqualTo(vector.h1());
        }
    }

    @ParameterizedTest
    @MethodSource("terraformVectors")
    void zhIsTheSha256OfTheWholeZip(Vector vector) throws IOException {
        byte[] zip = Files.readAllBytes(resource(vector.file()));
        assertThat(PackageHashes.zh(PackageHashes.sha256().digest(zip))).isEqualTo(vector.zh());
    }

    @Test
    void refusesZipsWithMoreEntriesThanTheLimit() throws IOException {
        Path zip = zip("many.zip", "a", "b", "c");
        assertThatThrownBy(() -> PackageHashes.h1(zip, new PackageHashes.Limits(2, 1_000)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("more than 2 entries");
    }

    @Test
    void refusesZipsThatExpandBeyondTheLimit() throws IOException {
        Path zip = tmp.resolve("bomb.zip");
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(zip))) {
            out.putNextEntry(new ZipEntry("zeros"));
            out.write(new byte[100_000]);
            out.closeEntry();
        }
        assertThat(Files.size(zip)).isLessThan(1_000);
        assertThatThrownBy(() -> PackageHashes.h1(zip, new PackageHashes.Limits(10, 50_000)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("expands to more than 50000 bytes");
    }

    @Test
    void refusesEntryNamesWithNewlines() throws IOException {
        Path zip = zip("newline.zip", "bad\nname");
        assertThatThrownBy(() -> PackageHashes.h1(zip))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("newline");
    }

    @Test
    void refusesAZipBombByItsDeclaredSizesBeforeInflatingIt() throws IOException {
        Path zip = zeros("bomb.zip", 64 * 1024 * 1024);
        assertThat(Files.size(zip)).as("64 MiB of zeros in a small zip").isLessThan(100_000);
        assertThatThrownBy(() -> PackageHashes.h1(zip))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("zip entry 'zeros' unpacks to more than 100 times its")
                .hasMessageContaining("zip bomb")
                .as("refused by what it declares, before inflating")
                .hasMessageContaining("(67108864 bytes");
    }

    @Test
    void refusesAZipBombWhoseDeclaredSizesLieByCountingWhatIsInflated() throws IOException {
        Path zip = zeros("liar.zip", 8 * 1024 * 1024);
        declareUncompressedSize(zip, 100);
        assertThatThrownBy(() -> PackageHashes.h1(zip))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("unpacks to more than 100 times");

        Path total = zeros("total.zip", 100_000);
        declareUncompressedSize(total, 10);
        assertThatThrownBy(() -> PackageHashes.h1(total, new PackageHashes.Limits(10, 50_000, 1_000_000)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("expands to more than 50000 bytes");
    }

    /**
     * {@code count} central-directory entries that all point at one deflate stream of {@code size} zeros, padded so
     * that each entry alone stays under the ratio: the whole unpacks to {@code count} times as much.
     */
    private Path overlapping(String name, int count, int size, int paddedTo) throws IOException {
        java.util.zip.Deflater deflater = new java.util.zip.Deflater(9, true);
        deflater.setInput(new byte[size]);
        deflater.finish();
        java.io.ByteArrayOutputStream kernel = new java.io.ByteArrayOutputStream();
        byte[] buffer = new byte[64 * 1024];
        while (!deflater.finished()) {
            kernel.write(buffer, 0, deflater.deflate(buffer));
        }
        deflater.end();
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(new byte[size]);
        byte[] data = java.util.Arrays.copyOf(kernel.toByteArray(), paddedTo);
        java.nio.ByteBuffer zip =
                java.nio.ByteBuffer.allocate(paddedTo + 1024 + count * 64).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        zip.putInt(0x04034b50)
                .putShort((short) 20)
                .putShort((short) 0)
                .putShort((short) 8)
                .putInt(0)
                .putInt((int) crc.getValue())
                .putInt(paddedTo)
                .putInt(size)
                .putShort((short) 1)
                .putShort((short) 0)
                .put((byte) 'a')
                .put(data);
        int centralStart = zip.position();
        for (int i = 0; i < count; i++) {
            byte[] entry = String.format(java.util.Locale.ROOT, "f%02d", i).getBytes(StandardCharsets.US_ASCII);
            zip.putInt(0x02014b50)
                    .putShort((short) 20)
                    .putShort((short) 20)
                    .putShort((short) 0)
                    .putShort((short) 8)
                    .putInt(0)
                    .putInt((int) crc.getValue())
                    .putInt(paddedTo)
                    .putInt(size)
                    .putShort((short) entry.length)
                    .putShort((short) 0)
                    .putShort((short) 0)
                    .putShort((short) 0)
                    .putShort((short) 0)
                    .putInt(0)
                    .putInt(0)
                    .put(entry);
        }
        int centralSize = zip.position() - centralStart;
        zip.putInt(0x06054b50)
                .putShort((short) 0)
                .putShort((short) 0)
                .putShort((short) count)
                .putShort((short) count)
                .putInt(centralSize)
                .putInt(centralStart)
                .putShort((short) 0);
        return Files.write(tmp.resolve(name), java.util.Arrays.copyOf(zip.array(), zip.position()));
    }

    @Test
    void refusesEntriesThatShareOneCompressedStreamEachUnderTheRatio() throws IOException {
        // 20 entries of 4 MiB each, all one ~4 KB stream padded to 60 KB: each is under 100x, the whole is ~1,400x.
        Path zip = overlapping("overlap.zip", 20, 4 * 1024 * 1024, 60_000);
        assertThatThrownBy(() -> PackageHashes.h1(zip))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("zip bomb");
        // One such entry alone is an ordinary archive.
        Path one = overlapping("one.zip", 1, 4 * 1024 * 1024, 60_000);
        assertThat(PackageHashes.h1(one)).startsWith("h1:");
    }

    @Test
    void refusesAZipThatDeclaresMoreThanTwoGibibytes() throws IOException {
        Path zip = zeros("big.zip", 1000);
        declareUncompressedSize(zip, 3L * 1024 * 1024 * 1024 - 1);
        assertThatThrownBy(() -> PackageHashes.h1(zip))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("expands to more than 2147483648 bytes (its entry 'zeros' declares 3221225471)");
    }

    @Test
    void namesComeFromTheEntryItselfNeverFromAUnicodePathExtraField() throws IOException {
        Path plain = tmp.resolve("plain.zip");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(plain))) {
            zip.putNextEntry(new ZipEntry("terraform-provider-x"));
            zip.write("binary".getBytes(StandardCharsets.UTF_8));
        }
        // The same file, with an extra field that claims another name (its CRC matches, so readers that honour
        // such fields use it); the CLI's reader does not, so the hash must not either.
        Path relabelled = tmp.resolve("relabelled.zip");
        try (ZipArchiveOutputStream zip = new ZipArchiveOutputStream(Files.newOutputStream(relabelled))) {
            zip.setEncoding("Cp437");
            zip.setUseLanguageEncodingFlag(false);
            ZipArchiveEntry entry = new ZipArchiveEntry("terraform-provider-x");
            entry.addExtraField(new UnicodePathExtraField(
                    "terraform-provider-y", "terraform-provider-x".getBytes(StandardCharsets.US_ASCII)));
            zip.putArchiveEntry(entry);
            zip.write("binary".getBytes(StandardCharsets.UTF_8));
            zip.closeArchiveEntry();
        }

        assertThat(PackageHashes.h1(relabelled)).isEqualTo(PackageHashes.h1(plain));
    }

    @Test
    void refusesEntryNamesThatAreNotUtf8() throws IOException {
        Path zipFile = tmp.resolve("latin1.zip");
        try (ZipArchiveOutputStream zip = new ZipArchiveOutputStream(Files.newOutputStream(zipFile))) {
            zip.setEncoding("ISO-8859-1");
            zip.setUseLanguageEncodingFlag(false);
            zip.putArchiveEntry(new ZipArchiveEntry("caf\u00e9"));
            zip.write(1);
            zip.closeArchiveEntry();
        }

        assertThatThrownBy(() -> PackageHashes.h1(zipFile))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("not UTF-8");
    }

    @Test
    void refusesCompressionMethodsTheCliCannotUnpack() throws IOException {
        Path zipFile = tmp.resolve("bzip2.zip");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(zipFile))) {
            ZipEntry entry = new ZipEntry("terraform-provider-x");
            entry.setMethod(ZipEntry.STORED);
            byte[] content = "binary".getBytes(StandardCharsets.UTF_8);
            java.util.zip.CRC32 crc = new java.util.zip.CRC32();
            crc.update(content);
            entry.setSize(content.length);
            entry.setCrc(crc.getValue());
            zip.putNextEntry(entry);
            zip.write(content);
        }
        // Relabel the entry as bzip2 (method 12) in its local header and in the central directory.
        byte[] bytes = Files.readAllBytes(zipFile);
        setMethod(bytes, new byte[] {0x50, 0x4b, 0x03, 0x04}, 8);
        setMethod(bytes, new byte[] {0x50, 0x4b, 0x01, 0x02}, 10);
        Files.write(zipFile, bytes);

        assertThatThrownBy(() -> PackageHashes.h1(zipFile))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("compression method 12");
    }

    private static void setMethod(byte[] zip, byte[] signature, int offset) {
        for (int i = 0; i + 4 <= zip.length; i++) {
            if (zip[i] == signature[0]
                    && zip[i + 1] == signature[1]
                    && zip[i + 2] == signature[2]
                    && zip[i + 3] == signature[3]) {
                zip[i + offset] = 12;
                zip[i + offset + 1] = 0;
                return;
            }
        }
        throw new AssertionError("no header");
    }

    @Test
    void hashesWhatRealProvidersLookLike() throws IOException {
        // A Go binary compresses 3 to 5 times; a text file much better, but text files in providers are small.
        byte[] binary = new byte[6 * 1024 * 1024];
        java.util.Random random = new java.util.Random(1);
        for (int i = 0; i < binary.length; i += 4) {
            binary[i] = (byte) random.nextInt();
        }
        Path zip = tmp.resolve("provider.zip");
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(zip))) {
            out.putNextEntry(new ZipEntry("terraform-provider-x_v1.0.0"));
            out.write(binary);
            out.closeEntry();
            out.putNextEntry(new ZipEntry("LICENSE"));
            out.write("Mozilla Public License 2.0\n".repeat(20_000).getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
        }
        assertThat(PackageHashes.h1(zip)).startsWith("h1:");
    }

    /** A zip of one entry, {@code zeros}, of {@code bytes} zero bytes. */
    private Path zeros(String name, int bytes) throws IOException {
        Path zip = tmp.resolve(name);
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(zip))) {
            out.setLevel(9);
            out.putNextEntry(new ZipEntry("zeros"));
            byte[] chunk = new byte[1024 * 1024];
            for (int written = 0; written < bytes; written += chunk.length) {
                out.write(chunk, 0, Math.min(chunk.length, bytes - written));
            }
            out.closeEntry();
        }
        return zip;
    }

    /** Rewrites the uncompressed size in the zip's central directory (what {@link java.util.zip.ZipFile} reads). */
    private static void declareUncompressedSize(Path zip, long size) throws IOException {
        byte[] bytes = Files.readAllBytes(zip);
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = bytes.length - 4; i >= 0; i--) {
            if (buffer.getInt(i) == 0x02014b50) {
                buffer.putInt(i + 24, (int) size);
                Files.write(zip, bytes);
                return;
            }
        }
        throw new IllegalStateException("no central directory header in " + zip);
    }

    private Path zip(String name, String... entries) throws IOException {
        Path zip = tmp.resolve(name);
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(zip))) {
            for (String entry : entries) {
                out.putNextEntry(new ZipEntry(entry));
                out.write(entry.getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
        }
        return zip;
    }
}
