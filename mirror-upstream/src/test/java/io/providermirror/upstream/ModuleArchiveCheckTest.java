package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.ModuleArchives;
import io.providermirror.testkit.ModuleArchives.Entry;
import io.providermirror.upstream.git.ArchiveLimits;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.util.List;
import java.util.Optional;
import org.apache.commons.compress.utils.SeekableInMemoryByteChannel;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** What a module archive may hold: zip and tar obey the same rules for names, link targets, entries and size. */
final class ModuleArchiveCheckTest {

    private static final ArchiveLimits LIMITS = new ArchiveLimits(100, 1_000_000);

    /** The two formats of archive a test builds, and the type the check reads each as. */
    enum Format {
        TAR_GZ(ModuleSource.ArchiveType.TAR_GZ),
        ZIP(ModuleSource.ArchiveType.ZIP);

        final ModuleSource.ArchiveType type;

        Format(ModuleSource.ArchiveType type) {
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
}
