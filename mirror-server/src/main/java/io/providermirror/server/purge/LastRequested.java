package io.providermirror.server.purge;

import io.providermirror.cache.BlobSummary;
import io.providermirror.cache.CacheKey;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * When a client last requested a cached archive, as far as the mirror knows: what retention judges by. The default
 * ({@link #fromIndex}) is the archive store's own index, the record its size bound evicts by; a usage record kept
 * elsewhere can stand in for it.
 */
@FunctionalInterface
public interface LastRequested {

    /** When the archive at {@code key} was last requested, if known. */
    Optional<Instant> of(CacheKey key);

    /** From the store's index as listed: each archive's last use ({@link BlobSummary#lastUsed}). */
    static LastRequested fromIndex(List<BlobSummary> listed) {
        Map<CacheKey, Instant> used = new HashMap<>();
        listed.forEach(summary -> used.put(summary.key(), summary.lastUsed()));
        return key -> Optional.ofNullable(used.get(key));
    }
}
