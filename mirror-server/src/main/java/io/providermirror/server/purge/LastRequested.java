package io.providermirror.server.purge;

import io.providermirror.cache.BlobSummary;
import io.providermirror.cache.CacheKey;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * When a client last requested a cached archive, as far as the mirror knows: what retention judges by. The archive
 * store's own index ({@link #fromIndex}) is the record its size bound evicts by; {@link FleetLastRequested} adds the
 * fleet's usage inventory to it.
 */
@FunctionalInterface
public interface LastRequested {

    /**
     * When the archive at {@code key} was last requested, at the latest; empty when that cannot be known (retention
     * then keeps it).
     */
    Optional<Instant> of(CacheKey key);

    /** From the store's index as listed: each archive's last use ({@link BlobSummary#lastUsed}). */
    static LastRequested fromIndex(List<BlobSummary> listed) {
        Map<CacheKey, Instant> used = new HashMap<>();
        listed.forEach(summary -> used.put(summary.key(), summary.lastUsed()));
        return key -> Optional.ofNullable(used.get(key));
    }
}
