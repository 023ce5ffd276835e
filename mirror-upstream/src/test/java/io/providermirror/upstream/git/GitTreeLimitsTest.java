package io.providermirror.upstream.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.testkit.GitHttpServer;
import io.providermirror.testkit.TestCertificates;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.OriginTrust;
import io.providermirror.upstream.verify.ArchiveLimits;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trees over the limits, from a git server on loopback: what the fetch keeps on disk is the repository's compressed
 * objects, never the tree, and the archive is refused before a byte of it is written.
 */
class GitTreeLimitsTest {

    private static final long LIMIT_BYTES = 10L << 20;
    private static final ArchiveLimits LIMITS = new ArchiveLimits(1000, LIMIT_BYTES);

    @TempDir
    Path temp;

    private GitHttpServer server;
    private OriginHttpClient http;
    private GitSource source;

    @BeforeEach
    void start() throws Exception {
        TestCertificates certificates = TestCertificates.create(temp.resolve("tls"), "git");
        server = GitHttpServer.start(temp.resolve("repos"), certificates);
        http = GitHttps.client(server.url("x").getAuthority());
        source = new GitSource(
                http::checkDestination,
                OriginTrust.of(certificates.caPem())::trustManager,
                Map.of(),
                Duration.ofSeconds(60),
                Clock.systemUTC());
        Files.createDirectories(temp.resolve("work"));
    }

    @AfterEach
    void stop() {
        server.close();
        http.close();
    }

    @Test
    void aHundredMebibytesOfZerosAreRefusedWithoutBeingWritten() throws Exception {
        publish(
                "zeros",
                Map.of("main.tf", TestTrees.Blob.text("# zeros\n"), "zeros.bin", TestTrees.Blob.zeros(100L << 20)));

        try (FetchedSource fetched = fetch("zeros")) {
            assertThat(bytesUnder(temp.resolve("work"))).isLessThan(LIMIT_BYTES);
            CountingSink out = new CountingSink();

            assertThatThrownBy(() -> TreeArchive.write(fetched, out, LIMITS))
                    .isInstanceOf(TreeArchive.Refused.class)
                    .hasMessageContaining("total bytes at zeros.bin");
            assertThat(out.count).isZero();
        }
        assertThat(temp.resolve("work")).isEmptyDirectory();
    }

    @Test
    void thirtyThousandFilesAreRefusedWithoutBeingWritten() throws Exception {
        Map<String, TestTrees.Blob> files = new TreeMap<>();
        TestTrees.Blob same = TestTrees.Blob.text("# same\n");
        for (int i = 0; i < 30_000; i++) {
            files.put("f/" + String.format("%05d", i) + ".tf", same);
        }
        publish("many", files);

        try (FetchedSource fetched = fetch("many")) {
            assertThat(filesUnder(temp.resolve("work"))).isLessThan(100);
            CountingSink out = new CountingSink();

            assertThatThrownBy(() -> TreeArchive.write(fetched, out, LIMITS))
                    .isInstanceOf(TreeArchive.Refused.class)
                    .hasMessageContaining("more than 1000 entries");
            assertThat(out.count).isZero();
        }
        assertThat(temp.resolve("work")).isEmptyDirectory();
    }

    private void publish(String name, Map<String, TestTrees.Blob> files) throws Exception {
        try (Repository repository = TestTrees.served(temp.resolve("repos"), name)) {
            TestTrees.publish(repository, "refs/tags/v1.0.0", TestTrees.commit(repository, files));
        }
    }

    private FetchedSource fetch(String name) throws GitFetchException {
        return source.fetch(GitHttps.ORIGIN, server.url(name), "v1.0.0", temp.resolve("work"), LIMITS);
    }

    private static long bytesUnder(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile)
                    .mapToLong(path -> path.toFile().length())
                    .sum();
        }
    }

    private static long filesUnder(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile).count();
        }
    }

    /** Counts what is written to it and keeps nothing. */
    private static final class CountingSink extends OutputStream {
        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count += len;
        }
    }
}
