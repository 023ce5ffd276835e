package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.StoredBlob;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.ForwardingBlobStore;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cold archive whose commit to the cache fails: its clients are told it is the cache's disk, never a 500. */
final class ArchiveCommitTest {

    @TempDir
    Path tmp;

    @Test
    void aClientThatMeetsAFailedCommitIsToldItIsTheCachesDisk() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror =
                        MirrorFixture.builder(tmp.resolve("cache"), origin).start(FailingCommits::new)) {
            origin.publish("acme", "flush", "1.0.0", FakeOrigin.Tamper.NONE, 300_000, "linux_amd64");
            String path = mirror.providerPath("acme", "flush") + "terraform-provider-flush_1.0.0_linux_amd64.zip";

            HttpResponse<byte[]> answer = mirror.get(path);

            // The request opens its reader only once the commit failed (see the store): it says what failed.
            assertThat(answer.statusCode()).isEqualTo(503);
            assertThat(MirrorFixture.error(answer))
                    .contains("cannot write the archive of example.test/acme/flush 1.0.0 linux_amd64 to its cache")
                    .contains("the disk failed while flushing");
        }
    }

    /**
     * A store whose commits fail as a disk that fails while flushing, and whose readers of a blob being written open
     * only once the fill gave it up: the request that started the fill meets the failure before its answer begins.
     */
    private static final class FailingCommits extends ForwardingBlobStore {

        FailingCommits(BlobStore delegate) {
            super(delegate);
        }

        @Override
        public BlobWrite create(CacheKey key) throws IOException {
            CountDownLatch failed = new CountDownLatch(1);
            return new ForwardingWrite(super.create(key)) {
                @Override
                public SeekableByteChannel openReader() throws IOException {
                    try {
                        if (!failed.await(60, TimeUnit.SECONDS)) {
                            throw new IOException("the commit never failed");
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException(e);
                    }
                    return super.openReader();
                }

                @Override
                public StoredBlob commit(String sha256) throws IOException {
                    throw new IOException("the disk failed while flushing");
                }

                /** The fill gives up after the failed commit: its failure is recorded by then. */
                @Override
                public void abort() {
                    super.abort();
                    failed.countDown();
                }
            };
        }
    }
}
