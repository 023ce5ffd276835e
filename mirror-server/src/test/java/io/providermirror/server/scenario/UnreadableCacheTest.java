package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.cache.CacheKey;
import io.providermirror.cache.OpenBlob;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.ForwardingBlobStore;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cache that cannot open a provider archive it holds (an I/O error on its disk): the client is told it is the
 * mirror's trouble, not the origin's, with a 503 naming the archive and what an operator must check, as for a module
 * archive ({@code ModuleMirrorTest}) and for a cache that cannot be written ({@code FullDiskTest}).
 */
final class UnreadableCacheTest {

    @TempDir
    Path tmp;

    @Test
    void aProviderArchiveTheCacheCannotOpenIsAnsweredAsTheMirrorUnavailableNamingIt() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                        .start(store -> new ForwardingBlobStore(store) {
                            @Override
                            public Optional<OpenBlob> openVerified(CacheKey key) {
                                return Optional.empty();
                            }

                            @Override
                            public Optional<OpenBlob> open(CacheKey key) throws IOException {
                                throw new IOException("the disk went away");
                            }
                        })) {
            origin.publish("acme", "unreadable", "1.0.0", "linux_amd64");

            HttpResponse<byte[]> archive = mirror.get(
                    mirror.providerPath("acme", "unreadable") + "terraform-provider-unreadable_1.0.0_linux_amd64.zip");

            assertThat(archive.statusCode())
                    .as("the mirror's own trouble, not the origin's")
                    .isEqualTo(503);
            assertThat(MirrorFixture.error(archive))
                    .contains("the mirror cannot read")
                    .contains("acme/unreadable")
                    .contains("the disk went away")
                    .contains("an operator must check the cache");
        }
    }
}
