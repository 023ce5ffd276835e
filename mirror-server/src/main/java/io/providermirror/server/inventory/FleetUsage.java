package io.providermirror.server.inventory;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * The fleet's inventory as read now, and how complete it is: {@code lastMissed} is the latest time an instance may
 * have served a request it did not count (its memory held {@code inventory.maxItems} items), empty when every
 * instance counted every request. An item that is not in {@code items} may have been requested as late as that.
 */
public record FleetUsage(Map<UsageItem, Usage> items, Optional<Instant> lastMissed) {

    public FleetUsage {
        items = Map.copyOf(items);
    }
}
