package io.providermirror.server.purge;

import io.providermirror.cache.BlobSummary;
import io.providermirror.server.inventory.FleetUsage;
import io.providermirror.server.inventory.UsageItem;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * When an archive was last requested by the fleet's record: the later of the usage inventory merged across every
 * instance's shard ({@link ArchiveItems} maps the archive to its item) and this instance's index. What the inventory
 * cannot vouch for is taken at its latest possible time: an item it does not hold, while an instance's memory was
 * full, as late as that instance last missed a request; on a shared store, an archive that is no item is not judged
 * at all (kept), since another instance may have served it without any record here.
 */
final class FleetLastRequested {

    private FleetLastRequested() {}

    /**
     * @param fleet the fleet's inventory as read now
     * @param listed the archives as the store lists them, each with this instance's last use
     * @param shared whether other instances serve from the same store (a bucket)
     */
    static LastRequested of(FleetUsage fleet, List<BlobSummary> listed, boolean shared) {
        Map<UsageItem, Instant> requested = new HashMap<>();
        fleet.items()
                .forEach((item, usage) ->
                        requested.merge(ArchiveItems.normalized(item), usage.last(), FleetLastRequested::later));
        LastRequested index = LastRequested.fromIndex(listed);
        return key -> {
            Optional<UsageItem> item = ArchiveItems.of(key);
            if (item.isEmpty()) {
                return shared ? Optional.empty() : index.of(key);
            }
            Instant inventory = requested.get(item.get());
            Optional<Instant> known = inventory != null ? Optional.of(inventory) : fleet.lastMissed();
            return latest(known, index.of(key));
        };
    }

    private static Optional<Instant> latest(Optional<Instant> a, Optional<Instant> b) {
        return a.isEmpty() ? b : b.isEmpty() ? a : Optional.of(later(a.get(), b.get()));
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }
}
