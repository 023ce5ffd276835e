package io.providermirror.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class GitHttpServerTest {

    @TempDir
    Path temp;

    private GitHttpServer server;
    private TrustingClient client;

    @BeforeEach
    void start() throws Exception {
        TestCertificates certificates = TestCertificates.create(temp.resolve("tls"), "git");
        server = GitHttpServer.start(temp.resolve("repos"), certificates);
        client = new TrustingClient(certificates.caPem());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void aRepositoryWithTagsAndASubdirectoryIsServedAndCloneable() throws Exception {
        GitRepository repository = server.createRepository("net");
        String first = repository.commit(Map.of("main.tf", "# v1\n", "modules/sub/main.tf", "# sub v1\n"), "v1");
        repository.tag("v1.0.0", first, true);
        String second = repository.commit(Map.of("main.tf", "# v2\n"), "v2");
        repository.tag("v2.0.0", second, false);

        String refs = infoRefs(repository.url());

        assertThat(repository.url()).isEqualTo(server.url("net"));
        assertThat(refs).contains(second + "\trefs/tags/v2.0.0", first + "\trefs/tags/v1.0.0^{}", "\trefs/heads/main");
        assertThat(repository.resolve("refs/tags/v1.0.0")).isEqualTo(first);
        Path clone = temp.resolve("clone");
        try (Git git = Git.cloneRepository()
                .setURI(temp.resolve("repos/net.git").toUri().toString())
                .setDirectory(clone.toFile())
                .call()) {
            git.checkout().setName(first).call();
        }
        assertThat(clone.resolve("modules/sub/main.tf")).hasContent("# sub v1");
        assertThat(client.get(URI.create(repository.url() + "/HEAD")).body())
                .asString(StandardCharsets.UTF_8)
                .contains("refs/heads/main");
    }

    @Test
    void aMovedTagIsServedWithItsNewCommit() throws Exception {
        GitRepository repository = server.createRepository("net");
        String first = repository.commit(Map.of("main.tf", "# v1\n"), "v1");
        String second = repository.commit(Map.of("main.tf", "# v2\n"), "v2");
        repository.tag("v2.0.0", second, true);

        repository.moveTag("v2.0.0", first);

        assertThat(repository.resolve("refs/tags/v2.0.0")).isEqualTo(first);
        assertThat(infoRefs(repository.url()))
                .contains(first + "\trefs/tags/v2.0.0")
                .doesNotContain(second + "\trefs/tags");
        assertThatThrownBy(() -> repository.moveTag("v9", first)).hasMessageContaining("no tag v9");
    }

    @Test
    void stoppedItRefusesConnectionsAndStartedAgainServesTheSameUrl() throws Exception {
        GitRepository repository = server.createRepository("net");
        repository.tag("v1", repository.commit(Map.of("main.tf", "#\n"), "v1"), false);
        URI url = repository.url();

        server.stop();
        assertThatThrownBy(() -> infoRefs(url)).isInstanceOf(IOException.class);
        server.start();

        assertThat(server.url("net")).isEqualTo(url);
        assertThat(infoRefs(url)).contains("refs/tags/v1");
    }

    @Test
    void onlyFilesInsideARepositoryAreServedAndRequestsAreRecorded() throws Exception {
        GitRepository repository = server.createRepository("net");
        repository.commit(Map.of("secret.tf", "#\n"), "v1");

        assertThat(client.get(URI.create(server.url("net")
                                .resolve("/.work/net/secret.tf")
                                .toString()))
                        .statusCode())
                .isEqualTo(404);
        assertThat(client.get(URI.create(repository.url() + "/../.work/net/secret.tf"))
                        .statusCode())
                .isEqualTo(404);
        assertThat(server.paths()).contains("/.work/net/secret.tf");
        assertThat(server.authorizations()).containsOnly("");
    }

    private String infoRefs(URI repository) throws Exception {
        var response = client.get(URI.create(repository + "/info/refs"));
        assertThat(response.statusCode()).isEqualTo(200);
        return new String(response.body(), StandardCharsets.UTF_8);
    }
}
