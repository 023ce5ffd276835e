package io.providermirror.upstream.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.providermirror.testkit.GitHttpServer;
import io.providermirror.testkit.TestCertificates;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.OriginTrust;
import io.providermirror.upstream.verify.ArchiveLimits;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where git's connections go: every one through the mirror's destination check, to the address it checked; the
 * token only to the repository's own authority; git alternates never followed. Two git servers on loopback: the
 * module's ({@code A}) and another one ({@code B}, an "internal service") that records every request.
 */
class GitHopsTest {

    private static final ArchiveLimits LIMITS = new ArchiveLimits(1000, 10 << 20);
    private static final String TOKEN = "Bearer s3cret-token";

    @TempDir
    Path temp;

    private TestCertificates certificates;
    private GitHttpServer moduleServer;
    private GitHttpServer internalService;
    private ObjectId privateCommit;

    @BeforeEach
    void start() throws Exception {
        certificates = TestCertificates.create(temp.resolve("tls"), "git");
        moduleServer = GitHttpServer.start(temp.resolve("a"), certificates);
        internalService = GitHttpServer.start(temp.resolve("b"), certificates);
        try (Repository secret = TestTrees.served(temp.resolve("b"), "private")) {
            privateCommit = TestTrees.commit(secret, Map.of("main.tf", TestTrees.Blob.text("# private\n")));
            TestTrees.publish(secret, "refs/tags/v1.0.0", privateCommit);
        }
        try (Repository served = TestTrees.served(temp.resolve("b"), "repo")) {
            TestTrees.publish(
                    served,
                    "refs/tags/v1.0.0",
                    TestTrees.commit(served, Map.of("main.tf", TestTrees.Blob.text("# public\n"))));
        }
        Files.createDirectories(temp.resolve("work"));
    }

    @AfterEach
    void stop() {
        moduleServer.close();
        internalService.close();
    }

    @Test
    void httpAlternatesNamingAnUnconfiguredInternalServiceAreNotFollowed() throws Exception {
        URI repository = repositoryBorrowingFrom(internalService.url("private") + "/objects");

        try (OriginHttpClient http = GitHttps.client(authority(moduleServer))) {
            assertThatThrownBy(() -> fetch(http, repository, "v1.0.0"))
                    .isInstanceOf(GitFetchException.class)
                    .hasMessageContaining("alternates");
        }

        assertThat(internalService.paths()).isEmpty();
        assertThat(moduleServer.paths()).isNotEmpty();
        assertThat(temp.resolve("work")).isEmptyDirectory();
    }

    @Test
    void alternatesAreNotFollowedEvenToAHostTheOriginMayUse() throws Exception {
        URI repository = repositoryBorrowingFrom(internalService.url("private") + "/objects");

        try (OriginHttpClient http = GitHttps.client(authority(moduleServer), authority(internalService))) {
            assertThatThrownBy(() -> fetch(http, repository, "v1.0.0"))
                    .isInstanceOf(GitFetchException.class)
                    .hasMessageContaining("alternates");
        }

        assertThat(internalService.paths()).isEmpty();
        assertThat(moduleServer.paths()).noneMatch(path -> path.contains("alternates"));
    }

    @Test
    void aRedirectToAnotherAuthorityIsFollowedWithoutTheToken() throws Exception {
        try (Redirector redirector = new Redirector(internalService);
                OriginHttpClient http = GitHttps.client(redirector.authority(), authority(internalService));
                FetchedSource fetched = fetch(http, redirector.url("repo"), "v1.0.0")) {
            assertThat(fetched.commitId()).hasSize(40);
            assertThat(redirector.authorizations).containsOnly(TOKEN);
        }

        assertThat(internalService.paths()).isNotEmpty();
        assertThat(internalService.authorizations()).isNotEmpty().containsOnly("");
    }

    @Test
    void aRedirectToAnUnconfiguredInternalServiceIsRefusedBeforeItIsContacted() throws Exception {
        try (Redirector redirector = new Redirector(internalService);
                OriginHttpClient http = GitHttps.client(redirector.authority())) {
            assertThatThrownBy(() -> fetch(http, redirector.url("repo"), "v1.0.0"))
                    .isInstanceOf(OriginException.class)
                    .hasMessageContaining("internal address");
            assertThat(redirector.authorizations).isNotEmpty();
        }

        assertThat(internalService.paths()).isEmpty();
        assertThat(temp.resolve("work")).isEmptyDirectory();
    }

    @Test
    void gitConnectsToTheAddressTheCheckAllowedNotToWhatTheNameResolvesToLater() throws Exception {
        // The check answers 127.0.0.2, where nothing listens; "localhost" itself leads to the server on 127.0.0.1.
        GitDestinations elsewhere = (origin, uri, what) -> loopback(2);
        GitDestinations there = (origin, uri, what) -> loopback(1);

        assertThatThrownBy(() -> source(elsewhere)
                        .fetch(GitHttps.ORIGIN, internalService.url("repo"), "v1.0.0", temp.resolve("work"), LIMITS))
                .isInstanceOf(GitFetchException.class);
        assertThat(internalService.paths()).isEmpty();

        try (FetchedSource fetched = source(there)
                .fetch(GitHttps.ORIGIN, internalService.url("repo"), "v1.0.0", temp.resolve("work"), LIMITS)) {
            assertThat(fetched.commitId()).hasSize(40);
        }
    }

    /**
     * A repository on the module's server that holds no objects of its own: its tag names a commit of the internal
     * service's private repository, and its {@code objects/info/http-alternates} names that repository.
     */
    private URI repositoryBorrowingFrom(String alternate) throws IOException {
        Path bare = temp.resolve("a/public.git");
        Files.createDirectories(bare.resolve("objects/info"));
        Files.createDirectories(bare.resolve("info"));
        Files.writeString(bare.resolve("info/refs"), privateCommit.name() + "\trefs/tags/v1.0.0\n");
        Files.writeString(bare.resolve("objects/info/packs"), "\n");
        Files.writeString(bare.resolve("objects/info/http-alternates"), alternate + "\n");
        Files.writeString(bare.resolve("objects/info/alternates"), "../../../b/private.git/objects\n");
        Files.writeString(bare.resolve("HEAD"), "ref: refs/heads/main\n");
        return moduleServer.url("public");
    }

    private FetchedSource fetch(OriginHttpClient http, URI repository, String ref)
            throws GitFetchException, IOException {
        return source(http::checkDestination).fetch(GitHttps.ORIGIN, repository, ref, temp.resolve("work"), LIMITS);
    }

    private GitSource source(GitDestinations destinations) throws IOException {
        return new GitSource(
                destinations,
                OriginTrust.of(certificates.caPem())::trustManager,
                Map.of("localhost", new GitCredential(TOKEN)),
                Duration.ofSeconds(30),
                Clock.systemUTC());
    }

    private static InetAddress loopback(int last) {
        try {
            return InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, (byte) last});
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static String authority(GitHttpServer server) {
        return server.url("x").getAuthority();
    }

    /** Answers every request with a redirect to the same path and query on {@code target}; records credentials. */
    private final class Redirector implements AutoCloseable {
        final List<String> authorizations = new CopyOnWriteArrayList<>();
        private final HttpsServer server;

        Redirector(GitHttpServer target) throws IOException {
            server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.setHttpsConfigurator(new HttpsConfigurator(certificates.serverSslContext()));
            String base = "https://" + GitHopsTest.authority(target);
            server.createContext("/", exchange -> {
                try (exchange) {
                    String authorization = exchange.getRequestHeaders().getFirst("Authorization");
                    authorizations.add(authorization == null ? "" : authorization);
                    exchange.getResponseHeaders().add("Location", base + exchange.getRequestURI());
                    exchange.sendResponseHeaders(302, -1);
                }
            });
            server.start();
        }

        String authority() {
            return "localhost:" + server.getAddress().getPort();
        }

        URI url(String name) {
            return URI.create("https://" + authority() + "/" + name + ".git");
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
