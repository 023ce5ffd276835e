package io.providermirror.server.inventory;

import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The one ranking of the usage inventory by requests, for whatever groups its items: the status page's items
 * requested most (each item alone), and what the warm-up after start-up reads first (the origin hosts, the cached
 * provider versions). The requests of the items one key groups are summed; most requests first, then the key
 * requested last, then {@code order}.
 */
public final class MostRequested {

    private MostRequested() {}

    /** A key's requests so far and its latest one. */
    private record Tally(long requests, Instant last) {

        Tally plus(Tally other) {
            return new Tally(requests + other.requests, last.isAfter(other.last) ? last : other.last);
        }
    }

    /**
     * The keys of {@code items}, most requested first, at most {@code limit}; an item {@code key} gives no key for
     * is left out.
     */
    public static <K> List<K> rank(
            Map<UsageItem, Usage> items, Function<UsageItem, Optional<K>> key, Comparator<? super K> order, int limit) {
        Map<K, Tally> tallies = new HashMap<>();
        items.forEach((item, usage) -> key.apply(item)
                .ifPresent(k -> tallies.merge(k, new Tally(usage.requests(), usage.last()), Tally::plus)));
        Comparator<Map.Entry<K, Tally>> byTally = Comparator.comparing(
                        (Map.Entry<K, Tally> entry) -> entry.getValue().requests())
                .thenComparing(entry -> entry.getValue().last())
                .reversed();
        return tallies.entrySet().stream()
                .sorted(byTally.thenComparing(Map.Entry.comparingByKey(order)))
                .limit(limit)
                .map(Map.Entry::getKey)
                .toList();
    }
}
