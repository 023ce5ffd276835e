package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.FakeOrigin;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cold archive whose commit to the cache fails: its clients are told it is the cache's disk, never a 500. */
final class ArchiveCommitTest {

    @TempDir
    Path tmp;

    @Test
    void aClientThatMeetsAFailedCommitIsToldItIsTheCachesDisk() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                        .start(store -> new FillsEndBeforeRead(store, "the disk failed while flushing"))) {
            origin.publish("acme", "flush", "1.0.0", FakeOrigin.Tamper.NONE, 300_000, "linux_amd64");
            String path = mirror.providerPath("acme", "flush") + "terraform-provider-flush_1.0.0_linux_amd64.zip";

            HttpResponse<byte[]> answer = mirror.get(path);

            // The request opens its reader only once the fill gave up after the failed commit: it says what failed.
            assertThat(answer.statusCode()).isEqualTo(503);
            assertThat(MirrorFixture.error(answer))
                    .contains("cannot write the archive of example.test/acme/flush 1.0.0 linux_amd64 to its cache")
                    .contains("the disk failed while flushing");
        }
    }
}
