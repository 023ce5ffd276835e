package io.providermirror.server.app;

import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.core.Futures;
import io.providermirror.server.inventory.InventoryCompaction;
import io.providermirror.server.inventory.UsageInventory;
import io.providermirror.server.purge.PurgeFollower;
import io.providermirror.server.purge.Retention;
import io.providermirror.server.purge.RetentionSchedule;
import java.time.Clock;
import java.time.Duration;

/** What keeps a running mirror's cache in order beside its requests: following a fleet's purges, retention. */
final class CacheUpkeep {

    private CacheUpkeep() {}

    /** Starts, on {@code core}'s executor, what {@code config} asks for. */
    static void start(MirrorConfig config, MirrorWiring core, Clock clock) {
        if (config.cache().s3() != null) {
            // Instances sharing the bucket drop what they hold of each other's purges within a version list's
            // freshness (at most 30 s, at least 1 s), as they see each other's released module pins.
            Duration ttl = config.cache().indexTtl();
            new PurgeFollower(
                            core.purge(),
                            core.executor(),
                            ttl.compareTo(Duration.ofSeconds(30)) > 0
                                    ? Duration.ofSeconds(30)
                                    : ttl.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : ttl)
                    .start();
            // Shards of instances that stopped writing (six times longer than a running one ever leaves its shard)
            // are folded into the retired totals; checked every few flushes.
            Duration flush = config.inventory().flushInterval();
            InventoryCompaction compaction = new InventoryCompaction(
                    core.documents(),
                    core.fillLeases(),
                    clock,
                    flush.multipliedBy(6L * UsageInventory.REWRITE_FLUSHES));
            Futures.every(
                    flush.multipliedBy(UsageInventory.REWRITE_FLUSHES), core.executor(), compaction::compactQuietly);
        }
        if (config.cache().retention().enabled()) {
            new RetentionSchedule(
                            Retention.ofFleet(
                                    core.blobs(),
                                    core.purge(),
                                    core.inventory(),
                                    config.cache().s3() != null,
                                    config.cache().retention().unusedFor(),
                                    clock),
                            core.executor(),
                            config.cache().retention().interval())
                    .start();
        }
    }
}
