package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.StoredBlob;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.ForwardingBlobStore;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cold archive's clients have its last byte as soon as the mirror found the archive to be what was signed: the
 * commit that makes it durable and puts it in place (the disk's flush of the whole archive, a bucket's upload) is not
 * on their time, and a commit that fails does not take the verified archive from them.
 */
final class ArchiveCommitTest {

    @TempDir
    Path tmp;

    @Test
    void theClientHasTheVerifiedArchiveWhileItsCommitIsStillUnderWay() throws Exception {
        CountDownLatch committing = new CountDownLatch(1);
        CountDownLatch mayCommit = new CountDownLatch(1);
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                        .start(store -> new SlowCommits(store, committing, mayCommit, new AtomicBoolean()))) {
            FakeOrigin.Release release =
                    origin.publish("acme", "slow", "1.0.0", FakeOrigin.Tamper.NONE, 300_000, "linux_amd64");
            String path = mirror.providerPath("acme", "slow") + "terraform-provider-slow_1.0.0_linux_amd64.zip";
            try {
                HttpResponse<byte[]> answer = mirror.get(path);

                assertThat(answer.statusCode()).isEqualTo(200);
                assertThat(answer.body()).isEqualTo(release.archives().get("linux_amd64"));
                assertThat(committing.getCount()).as("the commit had begun").isZero();
                assertThat(mayCommit.getCount()).as("and is still waiting").isOne();
            } finally {
                mayCommit.countDown();
            }
            mirror.awaitDecision("archive.committed", "acme/slow");
            assertThat(mirror.get(path).body()).isEqualTo(release.archives().get("linux_amd64"));
            assertThat(origin.archiveDownloads(release, "linux_amd64"))
                    .as("the second answer came from the cache")
                    .isOne();
        }
    }

    @Test
    void aCommitThatFailsAfterTheVerificationLeavesItsClientTheArchiveAndCachesNothing() throws Exception {
        CountDownLatch committing = new CountDownLatch(1);
        CountDownLatch mayCommit = new CountDownLatch(1);
        AtomicBoolean failCommits = new AtomicBoolean(true);
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                        .start(store -> new SlowCommits(store, committing, mayCommit, failCommits))) {
            FakeOrigin.Release release =
                    origin.publish("acme", "lost", "1.0.0", FakeOrigin.Tamper.NONE, 300_000, "linux_amd64");
            String path = mirror.providerPath("acme", "lost") + "terraform-provider-lost_1.0.0_linux_amd64.zip";
            CountDownLatch answered = new CountDownLatch(1);
            CompletableFuture<HttpResponse<byte[]>> pending;
            try {
                pending = mirror.client.sendAsync(
                        HttpRequest.newBuilder(mirror.url(path))
                                .timeout(Duration.ofSeconds(90))
                                .build(),
                        head -> {
                            answered.countDown();
                            return HttpResponse.BodySubscribers.ofByteArray();
                        });
                assertThat(answered.await(60, TimeUnit.SECONDS))
                        .as("the answer began")
                        .isTrue();
                assertThat(committing.await(60, TimeUnit.SECONDS))
                        .as("the commit began")
                        .isTrue();
            } finally {
                mayCommit.countDown();
            }

            HttpResponse<byte[]> answer = pending.get(90, TimeUnit.SECONDS);

            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.body()).isEqualTo(release.archives().get("linux_amd64"));
            failCommits.set(false);
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(mirror.get(path).body()).isEqualTo(release.archives().get("linux_amd64"));
                assertThat(origin.archiveDownloads(release, "linux_amd64"))
                        .as("nothing was cached by the failed commit: fetched again")
                        .isEqualTo(2);
            });
        }
    }

    @Test
    void aClientThatMeetsAFailedCommitIsToldItIsTheCachesDisk() throws Exception {
        CountDownLatch mayCommit = new CountDownLatch(0);
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                        .start(store ->
                                new SlowCommits(store, new CountDownLatch(1), mayCommit, new AtomicBoolean(true)))) {
            FakeOrigin.Release release =
                    origin.publish("acme", "flush", "1.0.0", FakeOrigin.Tamper.NONE, 300_000, "linux_amd64");
            String path = mirror.providerPath("acme", "flush") + "terraform-provider-flush_1.0.0_linux_amd64.zip";

            HttpResponse<byte[]> answer = mirror.get(path);

            // The commit fails at once: a client whose answer began has the verified archive; one whose answer had
            // not begun is told what failed, never a 500.
            if (answer.statusCode() == 200) {
                assertThat(answer.body()).isEqualTo(release.archives().get("linux_amd64"));
            } else {
                assertThat(answer.statusCode()).isEqualTo(503);
                assertThat(MirrorFixture.error(answer))
                        .contains("cannot write the archive of example.test/acme/flush 1.0.0 linux_amd64 to its cache")
                        .contains("the disk failed while flushing");
            }
        }
    }

    /** A store whose commits wait for {@code mayCommit} (after counting down {@code committing}), and fail on request. */
    private static final class SlowCommits extends ForwardingBlobStore {
        private final CountDownLatch committing;
        private final CountDownLatch mayCommit;
        private final AtomicBoolean fail;

        SlowCommits(BlobStore delegate, CountDownLatch committing, CountDownLatch mayCommit, AtomicBoolean fail) {
            super(delegate);
            this.committing = committing;
            this.mayCommit = mayCommit;
            this.fail = fail;
        }

        @Override
        public BlobWrite create(CacheKey key) throws IOException {
            return new ForwardingWrite(super.create(key)) {
                @Override
                public StoredBlob commit(String sha256) throws IOException {
                    committing.countDown();
                    try {
                        if (!mayCommit.await(60, TimeUnit.SECONDS)) {
                            throw new IOException("the test never let the commit go on");
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted", e);
                    }
                    if (fail.get()) {
                        super.abort();
                        throw new IOException("the disk failed while flushing");
                    }
                    return super.commit(sha256);
                }
            };
        }
    }
}
