package io.providermirror.s3;

import io.providermirror.cache.BlobSummary;
import io.providermirror.cache.CacheKey;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What this instance knows of the archives in the bucket, least recently used first: built from a listing,
 * kept up to date by this instance's commits, reads and removals, and brought up to date with the other
 * instances' by every new listing. It chooses what to evict to keep the bucket under its bound.
 */
final class BucketIndex {

    private final long maxBytes;
    private final Clock clock;
    private final LinkedHashMap<CacheKey, BlobSummary> entries = new LinkedHashMap<>(16, 0.75f, true);
    private long totalBytes;
    private long evictions;

    BucketIndex(long maxBytes) {
        this(maxBytes, Clock.systemUTC());
    }

    /** @param clock when a use happens, for {@link BlobSummary#lastUsed} */
    BucketIndex(long maxBytes, Clock clock) {
        this.maxBytes = maxBytes;
        this.clock = clock;
    }

    /** Replaces what is known with a listing, keeping the order of use of the archives already known. */
    synchronized void replaceWith(List<BlobSummary> listing) {
        Map<CacheKey, BlobSummary> listed = new LinkedHashMap<>();
        listing.stream()
                .sorted((a, b) -> a.committedAt().compareTo(b.committedAt()))
                .forEach(summary -> listed.put(summary.key(), summary));
        LinkedHashMap<CacheKey, BlobSummary> known = new LinkedHashMap<>(entries);
        entries.clear();
        totalBytes = 0;
        for (BlobSummary summary : listed.values()) {
            if (!known.containsKey(summary.key())) {
                add(summary);
            }
        }
        for (BlobSummary was : known.values()) {
            BlobSummary summary = listed.get(was.key());
            if (summary != null) {
                add(new BlobSummary(
                        summary.key(),
                        summary.size(),
                        summary.committedAt(),
                        was.lastUsed().isAfter(summary.committedAt()) ? was.lastUsed() : summary.committedAt()));
            }
        }
    }

    synchronized void put(BlobSummary summary) {
        remove(summary.key());
        add(summary);
    }

    private void add(BlobSummary summary) {
        entries.put(summary.key(), summary);
        totalBytes += summary.size();
    }

    /** Marks {@code key} as just used. */
    synchronized void touch(CacheKey key) {
        BlobSummary summary = entries.get(key);
        if (summary != null) {
            entries.put(key, new BlobSummary(key, summary.size(), summary.committedAt(), clock.instant()));
        }
    }

    synchronized void remove(CacheKey key) {
        BlobSummary removed = entries.remove(key);
        if (removed != null) {
            totalBytes -= removed.size();
        }
    }

    /** Takes the least recently used archives out, except {@code keep}, until the total is under the bound. */
    synchronized List<CacheKey> evictOverBound(CacheKey keep) {
        List<CacheKey> victims = new ArrayList<>();
        Iterator<Map.Entry<CacheKey, BlobSummary>> eldest = entries.entrySet().iterator();
        while (totalBytes > maxBytes && eldest.hasNext()) {
            Map.Entry<CacheKey, BlobSummary> entry = eldest.next();
            if (entry.getKey().equals(keep)) {
                continue;
            }
            eldest.remove();
            totalBytes -= entry.getValue().size();
            evictions++;
            victims.add(entry.getKey());
        }
        return victims;
    }

    synchronized List<BlobSummary> summaries() {
        return List.copyOf(entries.values());
    }

    synchronized long totalBytes() {
        return totalBytes;
    }

    synchronized int count() {
        return entries.size();
    }

    synchronized long evictions() {
        return evictions;
    }
}
