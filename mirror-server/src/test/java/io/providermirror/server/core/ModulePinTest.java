package io.providermirror.server.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A module version's pin: which fetched content matches it (a module version never changes) and how it is named. */
final class ModulePinTest {

    private static final Instant PINNED = Instant.parse("2026-01-01T00:00:00Z");
    private static final String SHA_A = "a".repeat(64);
    private static final String SHA_B = "b".repeat(64);
    private static final String COMMIT_A = "1".repeat(40);
    private static final String COMMIT_B = "2".repeat(40);

    private static ModulePin archive(String sha256, long size, String subdirectory) {
        return new ModulePin(
                "ARCHIVE", sha256, size, null, "tar.gz", subdirectory, "https://a.test/m.tgz", PINNED, false);
    }

    private static ModulePin git(String commitId, String sha256, String subdirectory) {
        return new ModulePin(
                "GIT", sha256, 10, commitId, "tar.gz", subdirectory, "git::https://a.test/m", PINNED, false);
    }

    @Test
    void anArchiveMatchesOnlyBytesWithTheSameSha256() {
        ModulePin pin = archive(SHA_A, 100, "");

        assertThat(pin.matches(archive(SHA_A, 100, ""))).isTrue();
        assertThat(pin.matches(archive(SHA_B, 100, "")))
                .as("other bytes of the same length")
                .isFalse();
        assertThat(pin.matches(new ModulePin(
                        "ARCHIVE", SHA_A, 100, null, "zip", "", "https://b.test/elsewhere.zip", Instant.now(), true)))
                .as("where it came from, when and how does not decide")
                .isTrue();
    }

    @Test
    void aGitSourceMatchesOnlyTheSameCommitWhateverItsTarball() {
        ModulePin pin = git(COMMIT_A, SHA_A, "");

        assertThat(pin.matches(git(COMMIT_A, SHA_B, "")))
                .as("the same commit packed again")
                .isTrue();
        assertThat(pin.matches(git(COMMIT_B, SHA_A, ""))).as("a moved tag").isFalse();
        assertThat(pin.matches(git(COMMIT_B, "", ""))).isFalse();
    }

    @Test
    void theKindAndTheSubdirectoryMustMatchToo() {
        assertThat(archive(SHA_A, 100, "modules/vpc").matches(archive(SHA_A, 100, "modules/other")))
                .isFalse();
        assertThat(archive(SHA_A, 100, "").matches(archive(SHA_A, 100, null))).isTrue();
        assertThat(git(COMMIT_A, SHA_A, "").matches(archive(SHA_A, 10, ""))).isFalse();
        assertThat(archive(SHA_A, 10, "").matches(git(COMMIT_A, SHA_A, ""))).isFalse();
    }

    @Test
    void aPinNamesWhatItIsPinnedBy() {
        assertThat(archive(SHA_A, 100, "").identity()).isEqualTo("sha256 " + SHA_A);
        assertThat(git(COMMIT_A, SHA_A, "").identity()).isEqualTo("commit " + COMMIT_A);
    }

    @Test
    void acceptanceIsSetForTheNextFetchAndClearedOnImport() {
        ModulePin accepted = archive(SHA_A, 100, "x").accepted();

        assertThat(accepted.accepting()).isTrue();
        assertThat(accepted.withoutAcceptance()).isEqualTo(archive(SHA_A, 100, "x"));
        assertThat(new ModulePin("GIT", SHA_A, 1, null, "tar.gz", null, null, PINNED, false))
                .as("what is absent is empty")
                .extracting(ModulePin::commitId, ModulePin::subdirectory, ModulePin::source)
                .containsExactly("", "", "");
        assertThat(accepted)
                .isEqualTo(
                        new ModulePin("ARCHIVE", SHA_A, 100, "", "tar.gz", "x", "https://a.test/m.tgz", PINNED, true));
    }
}
