package io.providermirror.upstream.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.ModuleArchives;
import io.providermirror.testkit.ModuleArchives.Entry;
import io.providermirror.testkit.ModuleArchives.NameHeader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorOutputStream;
import org.apache.commons.compress.utils.SeekableInMemoryByteChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** What a module archive may hold: zip and tar obey the same rules for names, link targets, entries and size. */
final class ModuleArchiveCheckTest {

    private static final ArchiveLimits LIMITS = new ArchiveLimits(100, 1_000_000);

    /** The two formats of archive a test builds, and the type the check reads each as. */
    enum Format {
        TAR_GZ(ArchiveType.TAR_GZ),
        ZIP(ArchiveType.ZIP);

        final ArchiveType type;

        Format(ArchiveType type) {
            this.type = type;
        }

        byte[] build(List<Entry> entries) {
            return this == TAR_GZ ? ModuleArchives.tarGz(entries) : ModuleArchives.zip(entries);
        }
    }

    private static Optional<String> problem(Format format, Entry... entries) throws IOException {
        try (SeekableByteChannel archive = new SeekableInMemoryByteChannel(format.build(List.of(entries)))) {
            return ModuleArchiveCheck.problem(archive, format.type, LIMITS);
        }
    }

    private static final Entry MAIN = Entry.file("main.tf", "output \"v\" { value = 1 }\n");

    @ParameterizedTest
    @EnumSource(Format.class)
    void aModuleWithFilesDirectoriesAndALinkInsideItIsKept(Format format) throws IOException {
        assertThat(problem(
                        format,
                        MAIN,
                        Entry.file("modules/inner/main.tf", "x"),
                        Entry.symlink("modules/alias.tf", "inner/main.tf"),
                        Entry.symlink("here.tf", "./main.tf")))
                .isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/etc/passwd", "../../etc/passwd", "modules/../../x", "C:/Windows/x", "..\\..\\x"})
    void aTarSymlinkWhoseTargetLeavesTheModuleIsRefused(String target) throws IOException {
        assertThat(problem(Format.TAR_GZ, MAIN, Entry.symlink("passwd", target)))
                .hasValueSatisfying(reason -> assertThat(reason).contains("link target"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/etc/passwd", "../../etc/passwd", "modules/../../x", "C:/Windows/x", "..\\..\\x"})
    void aZipSymlinkWhoseTargetLeavesTheModuleIsRefusedAsInATar(String target) throws IOException {
        assertThat(problem(Format.ZIP, MAIN, Entry.symlink("passwd", target)))
                .hasValueSatisfying(reason -> assertThat(reason).contains("link target"));
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void anAbsoluteEntryNameIsRefused(Format format) throws IOException {
        assertThat(problem(format, MAIN, Entry.file("/etc/cron.d/x", "* * * * * root sh -c boom")))
                .hasValueSatisfying(reason ->
                        assertThat(reason).contains("absolute entry name").contains("/etc/cron.d/x"));
    }

    /**
     * commons-compress takes the leading {@code /} off a name read from a PAX {@code path} record (local or global)
     * or a GNU long name: the check reads the name as the header gave it.
     */
    @ParameterizedTest
    @CsvSource({
        "PAX, /etc/cron.d/x",
        "PAX_GLOBAL, /etc/cron.d/x",
        "GNU_LONG_NAME, /etc/cron.d/x",
        "PAX, //etc/cron.d/x",
        "GNU_LONG_NAME, ///etc/cron.d/x"
    })
    void anAbsoluteNameInAnExtendedHeaderIsRefusedAsInTheUstarHeader(NameHeader header, String name)
            throws IOException {
        assertThat(problem(
                        Format.TAR_GZ,
                        MAIN,
                        Entry.file(name, "* * * * * root sh -c boom").namedIn(header)))
                .hasValue("an absolute entry name (" + name + ")");
        assertThat(problem(Format.TAR_GZ, MAIN, Entry.symlink(name, "main.tf").namedIn(header)))
                .hasValue("an absolute entry name (" + name + ")");
    }

    @ParameterizedTest
    @EnumSource(
            value = NameHeader.class,
            names = {"PAX", "PAX_GLOBAL", "GNU_LONG_NAME"})
    void aNameThatClimbsOutInAnExtendedHeaderIsRefused(NameHeader header) throws IOException {
        assertThat(problem(Format.TAR_GZ, MAIN, Entry.file("../../x", "boom").namedIn(header)))
                .hasValue("a entry name that climbs out with '..' (../../x)");
    }

    @ParameterizedTest
    @EnumSource(
            value = NameHeader.class,
            names = {"PAX", "PAX_GLOBAL", "GNU_LONG_NAME"})
    void aNameInsideTheModuleInAnExtendedHeaderIsKept(NameHeader header) throws IOException {
        String deep = "modules/" + "nested/".repeat(20) + "main.tf";
        assertThat(problem(Format.TAR_GZ, MAIN, Entry.file(deep, "x").namedIn(header), Entry.file("b.tf", "y")))
                .isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void anEntryNameThatClimbsOutIsRefused(Format format) throws IOException {
        assertThat(problem(format, MAIN, Entry.file("a/../../etc/cron.d/x", "boom")))
                .hasValueSatisfying(reason -> assertThat(reason).contains("climbs out"));
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void moreEntriesOrMoreBytesThanTheLimitsAreRefused(Format format) throws IOException {
        Entry[] many = new Entry[101];
        for (int i = 0; i < many.length; i++) {
            many[i] = Entry.file("f" + i + ".tf", "");
        }
        assertThat(problem(format, many)).contains("more than 100 entries");
        assertThat(problem(format, Entry.file("big.tf", "x".repeat(1_000_001))))
                .contains("more than 1000000 bytes unpacked");
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void exactlyAsManyEntriesAndBytesAsTheLimitsAllowAreKept(Format format) throws IOException {
        Entry[] hundred = new Entry[100];
        for (int i = 0; i < hundred.length; i++) {
            hundred[i] = Entry.file("f" + i + ".tf", "");
        }
        assertThat(problem(format, hundred)).isEmpty();
        assertThat(problem(format, Entry.file("big.tf", "x".repeat(1_000_000)))).isEmpty();
        assertThat(problem(format, Entry.file("a.tf", "x".repeat(500_000)), Entry.file("b.tf", "x".repeat(500_001))))
                .as("the bytes of all entries count together")
                .contains("more than 1000000 bytes unpacked");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/etc/passwd", "../../etc/passwd"})
    void aTarHardLinkWhoseTargetLeavesTheModuleIsRefused(String target) throws IOException {
        TarArchiveEntry link = new TarArchiveEntry("passwd", TarArchiveEntry.LF_LINK);
        link.setLinkName(target);
        assertThat(check(tar(false, link), ArchiveType.TAR_GZ))
                .hasValueSatisfying(
                        reason -> assertThat(reason).contains("link target").contains(target));
        TarArchiveEntry inside = new TarArchiveEntry("alias.tf", TarArchiveEntry.LF_LINK);
        inside.setLinkName("main.tf");
        assertThat(check(tar(false, inside), ArchiveType.TAR_GZ)).isEmpty();
    }

    @Test
    void aTarBz2IsCheckedAsATarGzIs() throws IOException {
        TarArchiveEntry file = new TarArchiveEntry("main.tf");
        TarArchiveEntry escaping = new TarArchiveEntry("/etc/cron.d/x", true);
        for (ArchiveType type : List.of(ArchiveType.TAR_BZ2, ArchiveType.TAR_TBZ2)) {
            assertThat(check(tar(true, file), type)).as(type.name()).isEmpty();
            assertThat(check(tar(true, file, escaping), type))
                    .as(type.name())
                    .hasValue("an absolute entry name (/etc/cron.d/x)");
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = ArchiveType.class,
            names = {"TAR_XZ", "TXZ"})
    void anArchiveTypeTheMirrorDoesNotUnpackIsRefusedSayingWhatToPublish(ArchiveType type) throws IOException {
        assertThat(check(ModuleArchives.tarGz(List.of(MAIN)), type))
                .hasValue("the mirror does not unpack ." + type.extension()
                        + " archives to check them; publish the module as .tar.gz or .zip");
    }

    @Test
    void bytesThatAreNoArchiveAreRefusedAsUnreadable() throws IOException {
        byte[] garbage = "this is not an archive at all".repeat(10).getBytes(StandardCharsets.US_ASCII);
        assertThat(check(garbage, ArchiveType.ZIP))
                .hasValueSatisfying(reason -> assertThat(reason).startsWith("not a readable zip archive: "));
        for (ArchiveType type : List.of(ArchiveType.TAR_GZ, ArchiveType.TAR_BZ2)) {
            assertThat(check(garbage, type))
                    .as(type.name())
                    .hasValueSatisfying(reason -> assertThat(reason).startsWith("not a readable archive: "));
        }
    }

    @Test
    void aZipLinkTargetLongerThanAnyPathIsRefused() throws IOException {
        String longest = "a/".repeat(2048);
        assertThat(problem(Format.ZIP, MAIN, Entry.symlink("deep", longest))).isEmpty();
        assertThat(problem(Format.ZIP, MAIN, Entry.symlink("deeper", longest + "b")))
                .hasValue("a link target longer than 4096 bytes (deeper)");
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void aNameInAMessageIsCutAt200CharactersWithoutControlCharacters(Format format) throws IOException {
        String name200 = "../" + "n".repeat(197);
        assertThat(problem(format, Entry.file(name200, "x")))
                .hasValue("a entry name that climbs out with '..' (" + name200 + ")");
        assertThat(problem(format, Entry.file(name200 + "tail", "x")))
                .hasValue("a entry name that climbs out with '..' (" + name200 + "...)");
        assertThat(problem(format, Entry.file("/etc/\u001b[31mred", "x")))
                .hasValue("an absolute entry name (/etc/?[31mred)");
    }

    private static Optional<String> check(byte[] archive, ArchiveType type) throws IOException {
        try (SeekableByteChannel channel = new SeekableInMemoryByteChannel(archive)) {
            return ModuleArchiveCheck.problem(channel, type, LIMITS);
        }
    }

    /** A tar (gzip- or bzip2-compressed) of empty entries as given, hard links among them. */
    private static byte[] tar(boolean bzip2, TarArchiveEntry... entries) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (OutputStream compressed =
                        bzip2 ? new BZip2CompressorOutputStream(bytes) : new java.util.zip.GZIPOutputStream(bytes);
                TarArchiveOutputStream tar = new TarArchiveOutputStream(compressed)) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            for (TarArchiveEntry entry : entries) {
                tar.putArchiveEntry(entry);
                tar.closeArchiveEntry();
            }
        }
        return bytes.toByteArray();
    }
}
