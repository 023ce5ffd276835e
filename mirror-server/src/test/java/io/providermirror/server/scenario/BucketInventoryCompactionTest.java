package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.cache.CacheKey;
import io.providermirror.cache.DocumentStore;
import io.providermirror.server.app.MirrorWiring;
import io.providermirror.server.inventory.InventoryCompaction;
import io.providermirror.server.inventory.InventoryShards;
import io.providermirror.server.inventory.Usage;
import io.providermirror.server.inventory.UsageItem;
import io.providermirror.testkit.FakeOrigin;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two instances on one bucket (S3Proxy) compacting the usage inventory's shards at the same moment: the shards of
 * instances gone long ago are folded once into the retired totals and deleted, and both instances answer the same
 * counts before and after.
 */
final class BucketInventoryCompactionTest {

    private static final Duration STALE_AFTER = Duration.ofHours(1);

    @RegisterExtension
    static final MirrorBucket bucket = MirrorBucket.named("compaction");

    @TempDir
    Path tmp;

    @Test
    void twoInstancesCompactingAtOnceFoldEachGoneShardOnce() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture a =
                        bucket.mirror(tmp.resolve("cache-a"), origin, "fleet/").start();
                MirrorFixture b =
                        bucket.mirror(tmp.resolve("cache-b"), origin, "fleet/").start()) {
            DocumentStore documents = a.mirror.core().documents();
            Instant longAgo = Instant.now().minus(Duration.ofHours(3));
            for (int i = 1; i <= 3; i++) {
                documents.write(
                        CacheKey.of("_inventory", "gone-" + i + ".json"),
                        ("{\"instance\":\"gone-" + i + "\",\"written\":\"" + longAgo + "\",\"dropped\":0,\"items\":"
                                        + "[{\"kind\":\"provider\",\"address\":\"example.test/acme/old\","
                                        + "\"version\":\"1.0.0\",\"platform\":\"linux_amd64\",\"first\":\"" + longAgo
                                        + "\",\"last\":\"" + longAgo.plusSeconds(i) + "\",\"requests\":" + i
                                        + ",\"clients\":{\"ci\":" + i + "}}]}")
                                .getBytes(StandardCharsets.UTF_8));
            }
            assertThat(requests(a)).isEqualTo(6);
            assertThat(requests(b)).isEqualTo(6);

            CountDownLatch go = new CountDownLatch(1);
            List<CompletableFuture<Integer>> compactions = new ArrayList<>();
            for (MirrorWiring core : List.of(a.mirror.core(), b.mirror.core())) {
                compactions.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        go.await();
                        return new InventoryCompaction(
                                        core.documents(), core.fillLeases(), Clock.systemUTC(), STALE_AFTER)
                                .compact();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            go.countDown();
            int retired = 0;
            for (CompletableFuture<Integer> compaction : compactions) {
                retired += compaction.get();
            }

            assertThat(retired)
                    .as("one instance held the lease and retired all three")
                    .isEqualTo(3);
            assertThat(documents.list(InventoryShards.FOLDER)).containsExactly(InventoryCompaction.RETIRED);
            Usage usage = a.mirror.core().inventory().fleet().get(item());
            assertThat(usage.requests()).isEqualTo(6);
            assertThat(usage.last()).isEqualTo(longAgo.plusSeconds(3));
            assertThat(usage.clients()).containsEntry("ci", 6L);
            assertThat(requests(b)).isEqualTo(6);
            assertThat(new InventoryCompaction(documents, a.mirror.core().fillLeases(), Clock.systemUTC(), STALE_AFTER)
                            .compact())
                    .isZero();
            assertThat(requests(a)).isEqualTo(6);
        }
    }

    private static UsageItem item() {
        return UsageItem.provider(
                io.providermirror.model.ProviderAddress.parse("example.test/acme/old"),
                io.providermirror.model.ProviderVersion.parse("1.0.0").orElseThrow(),
                io.providermirror.model.Platform.parse("linux_amd64"));
    }

    private static long requests(MirrorFixture mirror) throws Exception {
        return mirror.mirror.core().inventory().fleet().get(item()).requests();
    }
}
