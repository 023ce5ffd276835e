package io.providermirror.upstream.git;

import static io.providermirror.upstream.git.TestTrees.Blob.executable;
import static io.providermirror.upstream.git.TestTrees.Blob.symlink;
import static io.providermirror.upstream.git.TestTrees.Blob.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.upstream.verify.ArchiveLimits;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.eclipse.jgit.internal.storage.dfs.DfsRepositoryDescription;
import org.eclipse.jgit.internal.storage.dfs.InMemoryRepository;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.TreeFormatter;
import org.junit.jupiter.api.Test;

class TreeArchiveTest {

    private static final ArchiveLimits GENEROUS = new ArchiveLimits(1000, 1 << 20);

    private final InMemoryRepository repository = new InMemoryRepository(new DfsRepositoryDescription("trees"));

    @Test
    void theSameTreeGivesTheSameBytesTwiceAndFromAnotherRepository() throws IOException {
        ObjectId commit = TestTrees.commit(repository, module());
        InMemoryRepository other = new InMemoryRepository(new DfsRepositoryDescription("other"));
        ObjectId again = TestTrees.commit(other, module());

        byte[] a = pack(commit);

        assertThat(pack(commit)).isEqualTo(a);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PackedTree packed = TreeArchive.write(other, again, out, GENEROUS);
        assertThat(out.toByteArray()).isEqualTo(a);
        assertThat(packed.archiveBytes()).isEqualTo(a.length);
        assertThat(packed.sha256()).hasSize(64);
    }

    @Test
    void aChangedFileChangesTheBytes() throws IOException {
        byte[] before = pack(TestTrees.commit(repository, module()));
        Map<String, TestTrees.Blob> changed = module();
        changed.put("main.tf", text("# changed\n"));

        assertThat(pack(TestTrees.commit(repository, changed))).isNotEqualTo(before);
    }

    @Test
    void theArchiveHoldsSortedNamesAndNormalisedOwnersModesAndTimes() throws IOException {
        List<TarArchiveEntry> entries = read(pack(TestTrees.commit(repository, module())));

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
    void filesAreConvertedAsTheTreesGitattributesAskACheckoutTo() throws IOException {
        Map<String, TestTrees.Blob> files = module();
        files.put(".gitattributes", text("*.bat eol=crlf\n"));
        files.put("run.bat", text("echo one\necho two\n"));

        byte[] archive = pack(TestTrees.commit(repository, files));

        assertThat(content(archive, "run.bat")).isEqualTo("echo one\r\necho two\r\n");
        assertThat(content(archive, "main.tf")).doesNotContain("\r");
    }

    @Test
    void aSymlinkLeavingTheTreeIsRefused() throws IOException {
        Map<String, TestTrees.Blob> files = module();
        files.put("modules/escape", symlink("../../secret"));
        ObjectId commit = TestTrees.commit(repository, files);

        assertThatThrownBy(() -> pack(commit))
                .isInstanceOf(TreeArchive.Refused.class)
                .hasMessageContaining("modules/escape");
    }

    @Test
    void anAbsoluteSymlinkIsRefused() throws IOException {
        Map<String, TestTrees.Blob> files = module();
        files.put("passwd", symlink("/etc/passwd"));
        ObjectId commit = TestTrees.commit(repository, files);

        assertThatThrownBy(() -> pack(commit))
                .isInstanceOf(TreeArchive.Refused.class)
                .hasMessageContaining("outside");
    }

    @Test
    void aNameACheckoutRefusesIsRefused() throws IOException {
        try (ObjectInserter inserter = repository.newObjectInserter()) {
            ObjectId blob = inserter.insert(Constants.OBJ_BLOB, "[core]\n".getBytes(StandardCharsets.UTF_8));
            TreeFormatter git = new TreeFormatter();
            git.append("config", FileMode.REGULAR_FILE, blob);
            TreeFormatter root = new TreeFormatter();
            root.append(".git", FileMode.TREE, inserter.insert(git));
            ObjectId commit = TestTrees.commitTree(inserter, inserter.insert(root));

            assertThatThrownBy(() -> pack(commit))
                    .isInstanceOf(TreeArchive.Refused.class)
                    .hasMessageContaining(".git");
        }
    }

    @Test
    void tooManyEntriesAreRefusedWithNothingWritten() throws IOException {
        ObjectId commit = TestTrees.commit(repository, module());
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        assertThatThrownBy(() -> TreeArchive.write(repository, commit, out, new ArchiveLimits(7, 1 << 20)))
                .isInstanceOf(TreeArchive.Refused.class)
                .hasMessageContaining("more than 7 entries");
        assertThat(out.size()).isZero();
        assertThat(TreeArchive.write(repository, commit, new ByteArrayOutputStream(), new ArchiveLimits(8, 1 << 20))
                        .entries())
                .isEqualTo(8);
    }

    @Test
    void tooManyBytesAreRefusedWithNothingWritten() throws IOException {
        ObjectId commit = TestTrees.commit(repository, module());
        long total = module().values().stream()
                .filter(blob -> blob.mode() != FileMode.SYMLINK)
                .mapToLong(TestTrees.Blob::size)
                .sum();
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        assertThatThrownBy(() -> TreeArchive.write(repository, commit, out, new ArchiveLimits(100, total - 1)))
                .isInstanceOf(TreeArchive.Refused.class)
                .hasMessageContaining("total bytes");
        assertThat(out.size()).isZero();
        assertThat(TreeArchive.write(repository, commit, new ByteArrayOutputStream(), new ArchiveLimits(100, total))
                        .entries())
                .isEqualTo(8);
    }

    /** A module: files, a subdirectory, an executable and an inside symlink. */
    static Map<String, TestTrees.Blob> module() {
        Map<String, TestTrees.Blob> files = new LinkedHashMap<>();
        files.put("main.tf", text("module \"net\" { source = \"./modules/net\" }\n"));
        files.put("README.md", text("# a module\n"));
        files.put("modules/net/main.tf", text("variable \"cidr\" {}\n"));
        files.put("scripts/run.sh", executable("#!/bin/sh\necho hi\n"));
        files.put("shared.tf", symlink("modules/net/main.tf"));
        return files;
    }

    private byte[] pack(ObjectId commit) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TreeArchive.write(repository, commit, out, GENEROUS);
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
