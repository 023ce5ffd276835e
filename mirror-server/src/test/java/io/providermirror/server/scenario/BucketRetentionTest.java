package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.providermirror.server.app.MirrorWiring;
import io.providermirror.server.purge.PurgeReport;
import io.providermirror.server.purge.Retention;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.SettableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention on a fleet of two instances sharing a bucket (S3Proxy on loopback) judges by the fleet's record: an
 * archive only the other instance served recently stays; once nobody requested it for {@code unusedFor} it goes from
 * the bucket, and the other instance, following the record of purges, stops serving its local copy.
 */
final class BucketRetentionTest {

    private static final Duration UNUSED_FOR = Duration.ofDays(30);
    private static final String BASE = "/providers/example.test/acme/kept/";
    private static final String ARCHIVE = BASE + "terraform-provider-kept_1.0.0_linux_amd64.zip";
    private static final String KEY = "example.test/acme/kept/1.0.0/terraform-provider-kept_1.0.0_linux_amd64.zip";

    @RegisterExtension
    static final MirrorBucket bucket = MirrorBucket.named("retention");

    @TempDir
    Path tmp;

    @Test
    void anArchiveOnlyTheOtherInstanceServedRecentlyStaysAndGoesForBothOnceNobodyDid() throws Exception {
        SettableClock clockA = new SettableClock();
        SettableClock clockB = new SettableClock(clockA.instant());
        FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
        origin.publish("acme", "kept", "1.0.0", "linux_amd64");
        try (MirrorFixture a = onBucket(tmp.resolve("cache-a"), origin, clockA).start();
                MirrorFixture b =
                        onBucket(tmp.resolve("cache-b"), origin, clockB).start()) {
            assertThat(a.get(ARCHIVE).statusCode())
                    .as("A fetches it into the bucket")
                    .isEqualTo(200);
            clockB.advance(Duration.ofDays(20));
            assertThat(b.get(ARCHIVE).statusCode())
                    .as("B serves it 20 days later")
                    .isEqualTo(200);
            b.mirror.core().inventory().flush();
            origin.close();

            clockA.advance(Duration.ofDays(31));
            PurgeReport kept = retention(a.mirror.core(), clockA).run(false);
            assertThat(kept.files())
                    .as("A last used it 31 days ago, but B served it 11 days ago")
                    .isEmpty();
            assertThat(b.get(ARCHIVE).statusCode()).isEqualTo(200);
            b.mirror.core().inventory().flush();

            clockA.advance(Duration.ofDays(20));
            PurgeReport removed = retention(a.mirror.core(), clockA).run(false);
            assertThat(removed.files()).as("nobody requested it for 31 days").containsExactly(KEY);
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> assertThat(b.get(ARCHIVE).statusCode())
                            .as("B drops its local copy, following the record of purges")
                            .isNotEqualTo(200));
            assertThat(Files.readString(
                            bucket.server().objectFile(bucket.name(), "fleet/documents/_purges/purges.json"),
                            StandardCharsets.UTF_8))
                    .contains("example.test/acme/kept", "linux_amd64");
        }
    }

    private static Retention retention(MirrorWiring core, Clock clock) {
        return Retention.ofFleet(core.blobs(), core.purge(), core.inventory(), true, UNUSED_FOR, clock);
    }

    private static MirrorFixture.Builder onBucket(Path cache, FakeOrigin origin, Clock clock) {
        return bucket.mirror(cache, origin, "fleet/")
                .set("cache.indexTtl", "1s")
                .clock(clock);
    }
}
