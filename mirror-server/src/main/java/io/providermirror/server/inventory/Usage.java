package io.providermirror.server.inventory;

import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The requests of one item: the first and the last, how many, and how many by each client name. At most
 * {@link #MAX_CLIENTS} names are kept; the requests of the others are counted under {@link #OTHER_CLIENTS}.
 */
public record Usage(Instant first, Instant last, long requests, Map<String, Long> clients) {

    /** How many client names an item keeps. */
    public static final int MAX_CLIENTS = 16;
    /** Where the requests of the names beyond {@link #MAX_CLIENTS} are counted (no client name has brackets). */
    public static final String OTHER_CLIENTS = "(others)";

    public Usage {
        clients = Map.copyOf(clients);
        if (first.isAfter(last) || requests < 1) {
            throw new IllegalArgumentException("usage: first " + first + ", last " + last + ", requests " + requests
                    + " (expected: first <= last, at least one request)");
        }
    }

    /** One request by {@code client} at {@code at}. */
    public static Usage once(Instant at, String client) {
        return new Usage(at, at, 1, Map.of(client, 1L));
    }

    /** Both together: the earlier first, the later last, the sums; the names bounded again. */
    public Usage plus(Usage other) {
        Map<String, Long> sum = new LinkedHashMap<>(clients);
        other.clients.forEach((name, count) -> sum.merge(name, count, Long::sum));
        return new Usage(
                first.isBefore(other.first) ? first : other.first,
                last.isAfter(other.last) ? last : other.last,
                requests + other.requests,
                bounded(sum));
    }

    /**
     * {@code counts} with at most {@link #MAX_CLIENTS} names: the names with most requests stay (ties by name), the
     * rest are added to {@link #OTHER_CLIENTS}, which takes one of the places.
     */
    static Map<String, Long> bounded(Map<String, Long> counts) {
        if (counts.size() <= MAX_CLIENTS) {
            return counts;
        }
        long others = counts.getOrDefault(OTHER_CLIENTS, 0L);
        List<Map.Entry<String, Long>> named = counts.entrySet().stream()
                .filter(e -> !e.getKey().equals(OTHER_CLIENTS))
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
                        .thenComparing(Map.Entry.comparingByKey()))
                .toList();
        Map<String, Long> kept = new LinkedHashMap<>();
        for (Map.Entry<String, Long> entry : named) {
            if (kept.size() < MAX_CLIENTS - 1) {
                kept.put(entry.getKey(), entry.getValue());
            } else {
                others += entry.getValue();
            }
        }
        kept.put(OTHER_CLIENTS, others);
        return kept;
    }
}
