package io.providermirror.upstream.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.testkit.GitHttpServer;
import io.providermirror.testkit.StallingServer;
import io.providermirror.testkit.TestCertificates;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.OriginTrust;
import io.providermirror.upstream.verify.ArchiveLimits;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GitSourceTest {

    private static final ArchiveLimits LIMITS = new ArchiveLimits(1000, 10 << 20);

    @TempDir
    Path temp;

    private Git bare;
    private GitHttpServer server;
    private OriginHttpClient http;
    private GitSource source;
    private RevCommit first;
    private RevCommit second;

    @BeforeEach
    void startServer() throws Exception {
        TestCertificates certificates = TestCertificates.create(temp.resolve("tls"), "git");
        Path work = temp.resolve("work");
        try (Git author =
                Git.init().setDirectory(work.toFile()).setInitialBranch("main").call()) {
            Files.createDirectories(work.resolve("modules/net"));
            Files.writeString(work.resolve("main.tf"), "# v1\n");
            Files.writeString(work.resolve("modules/net/main.tf"), "variable \"cidr\" {}\n");
            author.add().addFilepattern(".").call();
            first = commit(author, "v1");
            author.tag().setName("v1.0.0").setAnnotated(true).setMessage("v1").call();
            Files.writeString(work.resolve("main.tf"), "# v2\n");
            author.add().addFilepattern(".").call();
            second = commit(author, "v2");
            author.tag().setName("v2.0.0").setAnnotated(false).call();
            author.branchCreate().setName("stable").setStartPoint(first).call();
        }
        bare = Git.cloneRepository()
                .setURI(work.toUri().toString())
                .setDirectory(temp.resolve("repos/repo.git").toFile())
                .setBare(true)
                .setCloneAllBranches(true)
                .call();
        copyTags(work);
        GitHttpServer.updateServerInfo(bare.getRepository());
        server = GitHttpServer.start(temp.resolve("repos"), certificates);
        http = GitHttps.client(server.url("repo").getAuthority());
        source = new GitSource(
                http::checkDestination,
                OriginTrust.of(certificates.caPem())::trustManager,
                Map.of("localhost", GitCredential.bearer("s3cret-token")),
                Duration.ofSeconds(30),
                Clock.systemUTC());
        Files.createDirectories(temp.resolve("checkouts"));
    }

    @AfterEach
    void stopServer() {
        server.close();
        bare.close();
        http.close();
    }

    @Test
    void anAnnotatedTagIsFetchedAsItsCommitWithTheWholeTree() throws Exception {
        try (FetchedSource fetched = fetch("v1.0.0")) {
            assertThat(fetched.commitId()).isEqualTo(first.name());
            byte[] archive = pack(fetched);
            assertThat(TreeArchiveTest.content(archive, "main.tf")).isEqualTo("# v1\n");
            assertThat(TreeArchiveTest.content(archive, "modules/net/main.tf")).isNotEmpty();
        }
    }

    @Test
    void aLightweightTagABranchAndACommitIdAreFetched() throws Exception {
        try (FetchedSource tag = fetch("v2.0.0");
                FetchedSource branch = fetch("stable");
                FetchedSource commit = fetch(second.name())) {
            assertThat(tag.commitId()).isEqualTo(second.name());
            assertThat(branch.commitId()).isEqualTo(first.name());
            assertThat(TreeArchiveTest.content(pack(branch), "main.tf")).isEqualTo("# v1\n");
            assertThat(commit.commitId()).isEqualTo(second.name());
            assertThat(TreeArchiveTest.content(pack(commit), "main.tf")).isEqualTo("# v2\n");
        }
    }

    @Test
    void aMovedTagIsReportedWithItsNewCommit() throws Exception {
        try (FetchedSource before = fetch("v2.0.0")) {
            assertThat(before.commitId()).isEqualTo(second.name());
        }
        RefUpdate move = bare.getRepository().updateRef("refs/tags/v2.0.0");
        move.setNewObjectId(first);
        move.setForceUpdate(true);
        assertThat(move.update()).isEqualTo(RefUpdate.Result.FORCED);
        GitHttpServer.updateServerInfo(bare.getRepository());

        try (FetchedSource after = fetch("v2.0.0")) {
            assertThat(after.commitId()).isEqualTo(first.name());
            assertThat(TreeArchiveTest.content(pack(after), "main.tf")).isEqualTo("# v1\n");
        }
    }

    @Test
    void theFetchedTreePacksToTheSameArchiveTwice() throws Exception {
        byte[] one;
        byte[] two;
        try (FetchedSource fetched = fetch("v1.0.0")) {
            one = pack(fetched);
        }
        try (FetchedSource fetched = fetch(first.name())) {
            two = pack(fetched);
        }
        assertThat(two).isEqualTo(one);
        assertThat(TreeArchiveTest.read(one))
                .extracting(entry -> entry.getName())
                .containsExactly("main.tf", "modules/", "modules/net/", "modules/net/main.tf");
        assertThat(TreeArchiveTest.content(one, "main.tf")).isEqualTo("# v1\n");
    }

    @Test
    void theTokenIsSentToItsHostAndNeverShownInText() throws Exception {
        try (FetchedSource fetched = fetch("v1.0.0")) {
            assertThat(fetched.commitId()).isEqualTo(first.name());
        }
        assertThat(server.authorizations()).isNotEmpty().allMatch("Bearer s3cret-token"::equals);
        assertThat(GitCredential.bearer("s3cret-token").toString()).doesNotContain("s3cret");
    }

    @Test
    void anUnknownRefIsRefusedAndLeavesNoRepository() throws Exception {
        assertThatThrownBy(() -> fetch("v9.9.9"))
                .isInstanceOf(GitFetchException.class)
                .hasMessageContaining("no branch or tag v9.9.9");
        assertThat(temp.resolve("checkouts")).isEmptyDirectory();
    }

    @Test
    void aServerOutsideTheMirrorsTrustIsRefused() throws Exception {
        GitSource untrusting = new GitSource(
                http::checkDestination,
                OriginTrust.of(null)::trustManager,
                Map.of(),
                Duration.ofSeconds(30),
                Clock.systemUTC());

        assertThatThrownBy(() -> untrusting.fetch(
                        GitHttps.ORIGIN, server.url("repo"), "v1.0.0", temp.resolve("checkouts"), LIMITS))
                .isInstanceOf(GitFetchException.class);
        assertThat(server.paths()).isEmpty();
    }

    @Test
    void aRepositoryLargerThanTheLimitIsRefused() {
        assertThatThrownBy(() -> source.fetch(
                        GitHttps.ORIGIN,
                        server.url("repo"),
                        "v1.0.0",
                        temp.resolve("checkouts"),
                        new ArchiveLimits(1000, 64)))
                .isInstanceOf(GitFetchException.class)
                .hasMessageContaining("outgrew 64 bytes");
        assertThat(temp.resolve("checkouts")).isEmptyDirectory();
    }

    @Test
    void aStallingServerFailsTheFetchWithinItsTimeout() throws Exception {
        TestCertificates certificates = TestCertificates.create(temp.resolve("stalling-tls"), "stalling");
        try (StallingServer stalling = StallingServer.start(
                        certificates,
                        "0000000000000000000000000000000000000000\trefs/heads/main\n".getBytes(StandardCharsets.UTF_8),
                        10);
                OriginHttpClient allowing =
                        GitHttps.client(stalling.url("/repo.git").getAuthority())) {
            GitSource impatient = new GitSource(
                    allowing::checkDestination,
                    OriginTrust.of(certificates.caPem())::trustManager,
                    Map.of(),
                    Duration.ofSeconds(2),
                    Clock.systemUTC());
            long started = System.nanoTime();

            assertThatThrownBy(() -> impatient.fetch(
                            GitHttps.ORIGIN, stalling.url("/repo.git"), "main", temp.resolve("checkouts"), LIMITS))
                    .isInstanceOf(GitFetchException.class);
            // The server stalls for 60 s: a fetch that ends well before that ended by its own deadline (2 s); the
            // bound leaves a busy machine a wide margin.
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(40));
        }
        assertThat(temp.resolve("checkouts")).isEmptyDirectory();
    }

    @Test
    void aServerTricklingBelowTheMinimumRateIsAbandonedWithTheSettingNamed() throws Exception {
        // 16 bytes every 100 ms is at most 160 bytes/s, however fast the machine: below 1 KiB/s over any second.
        server.trickle(Duration.ofMillis(100));
        GitSource paced = source.withMinimumRate(1024, Duration.ofSeconds(1));

        assertThatThrownBy(() ->
                        paced.fetch(GitHttps.ORIGIN, server.url("repo"), "v1.0.0", temp.resolve("checkouts"), LIMITS))
                .isInstanceOf(GitFetchException.class)
                .hasMessageContaining("below upstream.minTransferRate (1024 bytes/s)");
        assertThat(temp.resolve("checkouts")).isEmptyDirectory();

        server.trickle(Duration.ZERO);
        try (FetchedSource fetched =
                paced.fetch(GitHttps.ORIGIN, server.url("repo"), "v1.0.0", temp.resolve("checkouts"), LIMITS)) {
            assertThat(fetched.commitId())
                    .as("a server at speed keeps the pace")
                    .isEqualTo(first.name());
        }
    }

    @Test
    void aPlainHttpUrlIsRefused() {
        assertThatThrownBy(() -> source.fetch(
                        GitHttps.ORIGIN,
                        java.net.URI.create("http://localhost/repo.git"),
                        "main",
                        temp.resolve("checkouts"),
                        LIMITS))
                .isInstanceOf(GitFetchException.class)
                .hasMessageContaining("https://");
    }

    private FetchedSource fetch(String ref) throws GitFetchException {
        return source.fetch(GitHttps.ORIGIN, server.url("repo"), ref, temp.resolve("checkouts"), LIMITS);
    }

    private static byte[] pack(FetchedSource fetched) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TreeArchive.write(fetched, out, LIMITS);
        return out.toByteArray();
    }

    private static RevCommit commit(Git git, String message) throws Exception {
        return git.commit()
                .setMessage(message)
                .setAuthor("author", "author@example.com")
                .setCommitter("author", "author@example.com")
                .setSign(false)
                .call();
    }

    /** A bare clone copies branches; the tags come along with the fetch of all refs. */
    private void copyTags(Path work) throws Exception {
        bare.fetch()
                .setRemote(work.toUri().toString())
                .setRefSpecs("+refs/tags/*:refs/tags/*", "+refs/heads/*:refs/heads/*")
                .call();
        assertThat(bare.getRepository().resolve("refs/tags/v1.0.0")).isNotNull().isNotEqualTo(ObjectId.zeroId());
    }
}
