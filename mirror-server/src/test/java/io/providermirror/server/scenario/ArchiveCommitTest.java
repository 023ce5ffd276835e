package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.ForwardingBlobStore;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
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

    @Test
    void aFillThatMeetsAnErrorEndsItsClientIsAnsweredAndTheNextRequestFetchesAfresh() throws Exception {
        AtomicBoolean broken = new AtomicBoolean(true);
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                        .start(store -> new ForwardingBlobStore(store) {
                            @Override
                            public BlobWrite create(CacheKey key) throws IOException {
                                return new ForwardingWrite(super.create(key)) {
                                    @Override
                                    public void write(ByteBuffer bytes) throws IOException {
                                        if (broken.getAndSet(false)) {
                                            throw new OutOfMemoryError("a test's: no memory for this write");
                                        }
                                        super.write(bytes);
                                    }
                                };
                            }
                        })) {
            FakeOrigin.Release release =
                    origin.publish("acme", "oom", "1.0.0", FakeOrigin.Tamper.NONE, 300_000, "linux_amd64");
            String path = mirror.providerPath("acme", "oom") + "terraform-provider-oom_1.0.0_linux_amd64.zip";

            try {
                assertThat(mirror.get(path).statusCode())
                        .as("an answer, not a wait")
                        .isGreaterThanOrEqualTo(500);
            } catch (IOException cutShort) {
                assertThat(cutShort).hasMessageContaining("bytes received");
            }

            HttpResponse<byte[]> again = mirror.get(path);
            assertThat(again.statusCode()).isEqualTo(200);
            assertThat(again.body()).isEqualTo(release.archives().get("linux_amd64"));
        }
    }
}
