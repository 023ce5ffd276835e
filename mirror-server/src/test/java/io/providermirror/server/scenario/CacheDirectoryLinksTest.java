package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.testkit.FakeOriginExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whoever can plant a symbolic link in the cache directory must not make the mirror delete or write files
 * elsewhere: a link anywhere below it stops the start-up with a message naming it, and is never followed.
 */
final class CacheDirectoryLinksTest {

    @TempDir
    Path tmp;

    @RegisterExtension
    final FakeOriginExtension fixture = new FakeOriginExtension();

    @Test
    void aSymlinkedTmpDirectoryIsRefusedAtStartUpAndNotFollowed() throws Exception {
        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
        Path precious = Files.writeString(elsewhere.resolve("precious.part"), "not the mirror's");
        Path cache = Files.createDirectories(tmp.resolve("cache"));
        Path link = Files.createSymbolicLink(cache.resolve("tmp"), elsewhere);

        assertThatThrownBy(() -> MirrorFixture.builder(cache, fixture.origin()).start())
                .hasMessageContaining(
                        "holds a symbolic link: " + link.toRealPath(java.nio.file.LinkOption.NOFOLLOW_LINKS))
                .hasMessageContaining("-> " + elsewhere);
        assertThat(precious).as("the link was not followed").exists().hasContent("not the mirror's");
    }

    @Test
    void aSymlinkDeepInsideTheArchivesIsRefusedToo() throws Exception {
        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
        Path cache = Files.createDirectories(tmp.resolve("cache"));
        Path hostDirectory = Files.createDirectories(cache.resolve("archives/example.test/acme"));
        Files.createSymbolicLink(hostDirectory.resolve("x"), elsewhere);

        assertThatThrownBy(() -> MirrorFixture.builder(cache, fixture.origin()).start())
                .hasMessageContaining("archives/example.test/acme/x -> " + elsewhere);
    }

    @Test
    void theCacheDirectoryItselfMayBeALink() throws Exception {
        Path real = Files.createDirectories(tmp.resolve("disk/cache"));
        Path link = Files.createSymbolicLink(tmp.resolve("cache"), real);
        try (MirrorFixture mirror =
                MirrorFixture.builder(link, fixture.origin()).start()) {
            assertThat(mirror.get("/healthz").statusCode()).isEqualTo(200);
        }
        assertThat(real.resolve("tmp")).isDirectory();
    }
}
