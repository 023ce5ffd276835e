package io.providermirror.server.config;

import java.time.Duration;

/**
 * The usage inventory: how often each instance writes its counts to its shard in the cache (and reads the other
 * instances' shards), and how many items (provider versions and platforms, module versions) its memory counts.
 */
public record InventoryConfig(Duration flushInterval, Integer maxItems) {

    /** How often counts are written unless {@code flushInterval} says otherwise. */
    public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofMinutes(1);
    /** How many items are counted unless {@code maxItems} says otherwise. */
    public static final int DEFAULT_MAX_ITEMS = 100_000;

    public InventoryConfig {
        flushInterval = flushInterval == null ? DEFAULT_FLUSH_INTERVAL : flushInterval;
        if (flushInterval.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("flushInterval: " + flushInterval + " (expected: at least 1s)");
        }
        maxItems = maxItems == null ? DEFAULT_MAX_ITEMS : maxItems;
        if (maxItems < 1) {
            throw new IllegalArgumentException("maxItems: " + maxItems + " (expected: > 0)");
        }
    }
}
