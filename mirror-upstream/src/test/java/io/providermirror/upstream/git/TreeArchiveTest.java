package io.providermirror.upstream.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TreeArchiveTest {

    private static final ArchiveLimits GENEROUS = new ArchiveLimits(1000, 1 << 20);

    @TempDir
    Path temp;

    @Test
    void theSameTreeGivesTheSameBytesTwiceElsewhereAndWithOtherTimes() throws IOException {
        Path first = module(temp.resolve("one"), Instant.parse("2020-01-01T00:00:00Z"));
        Path second = module(temp.resolve("elsewhere/two"), Instant.parse("2024-06-30T12:34:56Z"));

        byte[] a = pack(first);
        byte[] again = pack(first);
        byte[] b = pack(second);

        assertThat(again).isEqualTo(a);
        assertThat(b).isEqualTo(a);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PackedTree packed = TreeArchive.write(second, out, GENEROUS);
        assertThat(packed.archiveBytes()).isEqualTo(a.length);
        assertThat(packed.sha256()).hasSize(64);
    }

    @Test
    void aChangedFileChangesTheBytes() throws IOException {
        Path tree = module(temp.resolve("one"), Instant.EPOCH);
        byte[] before = pack(tree);
        Files.writeString(tree.resolve("main.tf"), "# changed\n");

        assertThat(pack(tree)).isNotEqualTo(before);
    }

    @Test
    void theArchiveHoldsSortedNamesWithoutGitAndNormalisedOwnersModesAndTimes() throws IOException {
        Path tree = module(temp.resolve("one"), Instant.parse("2020-01-01T00:00:00Z"));

        List<TarArchiveEntry> entries = read(pack(tree));

        assertThat(entries)
                .extracting(TarArchiveEntry::getName)
                .containsExactly(
                        "README.md",
                        "main.tf",
                        "modules/",
                        "modules/net/",
                        "modules/net/main.tf",
                        "scripts/",
                        "scripts/run.sh",
                        "shared.tf");
        assertThat(entries).allSatisfy(entry -> {
            assertThat(entry.getLongUserId()).isZero();
            assertThat(entry.getLongGroupId()).isZero();
            assertThat(entry.getUserName()).isEmpty();
            assertThat(entry.getGroupName()).isEmpty();
            assertThat(entry.getLastModifiedTime().toMillis()).isZero();
        });
        assertThat(entry(entries, "main.tf").getMode() & 07777).isEqualTo(0644);
        assertThat(entry(entries, "scripts/run.sh").getMode() & 07777).isEqualTo(0755);
        assertThat(entry(entries, "modules/").isDirectory()).isTrue();
        assertThat(entry(entries, "shared.tf").isSymbolicLink()).isTrue();
        assertThat(entry(entries, "shared.tf").getLinkName()).isEqualTo("modules/net/main.tf");
    }

    @Test
    void aSymlinkLeavingTheTreeIsRefused() throws IOException {
        Path tree = module(temp.resolve("one"), Instant.EPOCH);
        Files.createSymbolicLink(tree.resolve("modules/escape"), Path.of("../../../secret"));

        assertThatThrownBy(() -> pack(tree)).isInstanceOf(IOException.class).hasMessageContaining("modules/escape");
    }

    @Test
    void anAbsoluteSymlinkIsRefused() throws IOException {
        Path tree = module(temp.resolve("one"), Instant.EPOCH);
        Files.createSymbolicLink(tree.resolve("passwd"), Path.of("/etc/passwd"));

        assertThatThrownBy(() -> pack(tree)).isInstanceOf(IOException.class).hasMessageContaining("outside");
    }

    @Test
    void tooManyEntriesAreRefused() throws IOException {
        Path tree = module(temp.resolve("one"), Instant.EPOCH);

        assertThatThrownBy(() -> TreeArchive.write(tree, new ByteArrayOutputStream(), new ArchiveLimits(7, 1 << 20)))
                .hasMessageContaining("more than 7 entries");
        assertThat(TreeArchive.write(tree, new ByteArrayOutputStream(), new ArchiveLimits(8, 1 << 20))
                        .entries())
                .isEqualTo(8);
    }

    @Test
    void tooManyBytesAreRefused() throws IOException {
        Path tree = module(temp.resolve("one"), Instant.EPOCH);
        long total = contentBytes(tree);

        assertThatThrownBy(
                        () -> TreeArchive.write(tree, new ByteArrayOutputStream(), new ArchiveLimits(100, total - 1)))
                .hasMessageContaining("total bytes");
        assertThat(TreeArchive.write(tree, new ByteArrayOutputStream(), new ArchiveLimits(100, total))
                        .entries())
                .isEqualTo(8);
    }

    private static long contentBytes(Path tree) throws IOException {
        long total = 0;
        for (String name : List.of("README.md", "main.tf", "modules/net/main.tf", "scripts/run.sh")) {
            total += Files.size(tree.resolve(name));
        }
        return total;
    }

    /** A module checkout: files, a subdirectory, an executable, an inside symlink and a .git directory. */
    static Path module(Path root, Instant mtime) throws IOException {
        Files.createDirectories(root.resolve("modules/net"));
        Files.createDirectories(root.resolve("scripts"));
        Files.createDirectories(root.resolve(".git/objects"));
        Files.writeString(root.resolve(".git/HEAD"), "ref: refs/heads/main\n");
        Files.writeString(root.resolve("main.tf"), "module \"net\" { source = \"./modules/net\" }\n");
        Files.writeString(root.resolve("README.md"), "# a module\n");
        Files.writeString(root.resolve("modules/net/main.tf"), "variable \"cidr\" {}\n");
        Path script = root.resolve("scripts/run.sh");
        Files.writeString(script, "#!/bin/sh\necho hi\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-x---"));
        Files.setPosixFilePermissions(root.resolve("README.md"), PosixFilePermissions.fromString("rw-------"));
        Files.createSymbolicLink(root.resolve("shared.tf"), Path.of("modules/net/main.tf"));
        for (String name : List.of("main.tf", "README.md", "modules/net/main.tf", "scripts/run.sh", "modules")) {
            Files.setLastModifiedTime(root.resolve(name), FileTime.from(mtime));
        }
        return root;
    }

    private static byte[] pack(Path tree) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TreeArchive.write(tree, out, GENEROUS);
        return out.toByteArray();
    }

    static List<TarArchiveEntry> read(byte[] archive) throws IOException {
        List<TarArchiveEntry> entries = new ArrayList<>();
        try (TarArchiveInputStream tar =
                new TarArchiveInputStream(new GzipCompressorInputStream(new ByteArrayInputStream(archive)))) {
            for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
                entries.add(entry);
            }
        }
        return entries;
    }

    static String content(byte[] archive, String name) throws IOException {
        try (TarArchiveInputStream tar =
                new TarArchiveInputStream(new GzipCompressorInputStream(new ByteArrayInputStream(archive)))) {
            for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
                if (entry.getName().equals(name)) {
                    return new String(tar.readAllBytes(), StandardCharsets.UTF_8);
                }
            }
        }
        throw new AssertionError(name + " is not in the archive");
    }

    private static TarArchiveEntry entry(List<TarArchiveEntry> entries, String name) {
        return entries.stream()
                .filter(entry -> entry.getName().equals(name))
                .findFirst()
                .orElseThrow();
    }
}
