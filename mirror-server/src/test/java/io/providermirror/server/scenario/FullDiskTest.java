package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.ForwardingBlobStore;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cache's disk fills up while an archive is fetched: that client gets an error that blames the mirror's
 * disk (not the origin), nothing committed is lost, and the mirror recovers by itself when space returns.
 */
final class FullDiskTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void aFullDiskFailsThatDownloadLosesNothingAndTheMirrorRecovers() throws Exception {
        AtomicBoolean full = new AtomicBoolean();
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                        .start(store -> new DiskThatFills(store, full))) {
            FakeOrigin.Release kept =
                    origin.publish("acme", "kept", "1.0.0", FakeOrigin.Tamper.NONE, 100_000, "linux_amd64");
            FakeOrigin.Release later =
                    origin.publish("acme", "later", "1.0.0", FakeOrigin.Tamper.NONE, 100_000, "linux_amd64");
            String keptPath = mirror.providerPath("acme", "kept") + "terraform-provider-kept_1.0.0_linux_amd64.zip";
            String laterPath = mirror.providerPath("acme", "later") + "terraform-provider-later_1.0.0_linux_amd64.zip";
            assertThat(mirror.get(keptPath).body()).isEqualTo(kept.archives().get("linux_amd64"));

            full.set(true);
            try {
                HttpResponse<byte[]> failed = mirror.get(laterPath);
                // When the write failed before the response started, the client is told whose fault it is.
                assertThat(failed.statusCode()).isEqualTo(503);
                assertThat(JSON.readTree(failed.body()).get("errors").get(0).asText())
                        .contains("cannot write the archive of example.test/acme/later 1.0.0 linux_amd64 to its cache")
                        .contains("No space left on device");
            } catch (IOException aborted) {
                // Otherwise the response was cut short: the client never sees a complete archive.
                assertThat(aborted).isNotNull();
            }
            // The failed fill removes its temporary file as it ends, which may be just after the client's answer.
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                try (Stream<Path> leftovers = Files.list(mirror.cacheDirectory.resolve("tmp"))) {
                    assertThat(leftovers)
                            .as("no half-written file stays behind")
                            .isEmpty();
                }
            });
            try (Stream<Path> files = Files.walk(mirror.cacheDirectory.resolve("archives"))) {
                assertThat(files.filter(p -> p.getFileName().toString().startsWith("terraform-provider-later")))
                        .isEmpty();
            }
            assertThat(mirror.get(keptPath).body())
                    .as("what was committed is still served")
                    .isEqualTo(kept.archives().get("linux_amd64"));

            full.set(false);
            HttpResponse<byte[]> recovered = mirror.get(laterPath);
            assertThat(recovered.statusCode()).isEqualTo(200);
            assertThat(recovered.body()).isEqualTo(later.archives().get("linux_amd64"));
            assertThat(origin.archiveDownloads(kept, "linux_amd64")).isEqualTo(1);
        }
    }

    /** A store whose writes fail like a full disk while {@code full} is set. */
    private static final class DiskThatFills extends ForwardingBlobStore {
        private final AtomicBoolean full;

        DiskThatFills(BlobStore delegate, AtomicBoolean full) {
            super(delegate);
            this.full = full;
        }

        @Override
        public BlobWrite create(CacheKey key) throws IOException {
            return new ForwardingWrite(super.create(key)) {
                @Override
                public void write(ByteBuffer bytes) throws IOException {
                    if (full.get()) {
                        throw new IOException("No space left on device");
                    }
                    super.write(bytes);
                }
            };
        }
    }
}
