package io.providermirror.cache;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The store's index of committed blobs in least-recently-used order, with one state per key: its size and
 * commit time, the readers that pin it against eviction, whether its content was verified since the store
 * opened, and the blob as last opened (the hot path's memo), with its content when the store holds it in memory
 * ({@link #hold}; small blobs, up to a bound in all): an entry's content goes with its memo, whenever the blob is
 * replaced, removed, evicted or found changed. It decides what to evict and does no I/O: the caller deletes what it
 * is told to, so the rules are tested without a file system. Thread-safe.
 */
final class BlobIndex {

    /**
     * A blob pinned by the hot path: as last opened, with its content when it is held in memory.
     *
     * @param held the content, read-only, shared by every reader (take a {@link ByteBuffer#duplicate()}); null when
     *             the content is read from the file
     */
    record Pinned(StoredBlob blob, ByteBuffer held) {}

    /** Everything the store knows about one committed blob. */
    private static final class Entry {
        final long size;
        final Instant committedAt;
        /** When it was last used: what orders it for eviction, and what retention reads. */
        Instant usedAt;

        int readers;
        boolean verified;
        /** The blob as {@link BlobIndex#opened} last recorded it, so opening it again reads no metadata. */
        StoredBlob opened;
        /** That blob's content, when held in memory ({@link BlobIndex#hold}), and how many bytes it is. */
        ByteBuffer held;

        long heldSize;

        Entry(long size, Instant committedAt) {
            this.size = size;
            this.committedAt = committedAt;
            this.usedAt = committedAt;
        }
    }

    private final long maxBytes;
    private final long maxHeldBytes;
    private final Clock clock;
    /** Least recently used first; {@link #touch} moves an entry to the end, so a plain lookup reorders nothing. */
    private final LinkedHashMap<CacheKey, Entry> entries = new LinkedHashMap<>();

    private long totalBytes;
    private long heldBytes;
    private long evictions;

    BlobIndex(long maxBytes) {
        this(maxBytes, Clock.systemUTC(), 0);
    }

    /** @param clock when a use happens, for {@link BlobSummary#lastUsed}; nothing is held in memory */
    BlobIndex(long maxBytes, Clock clock) {
        this(maxBytes, clock, 0);
    }

    /**
     * @param clock        when a use happens, for {@link BlobSummary#lastUsed}
     * @param maxHeldBytes how much content may be held in memory in all
     */
    BlobIndex(long maxBytes, Clock clock, long maxHeldBytes) {
        this.clock = clock;
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("maxBytes: " + maxBytes + " (expected: > 0)");
        }
        this.maxBytes = maxBytes;
        this.maxHeldBytes = maxHeldBytes;
    }

    /**
     * Records a committed blob as the most recently used, replacing (and unpinning) what was at its key.
     *
     * @param verified whether its content is known to match its sha256
     */
    synchronized void put(CacheKey key, long size, Instant committedAt, boolean verified) {
        put(key, size, committedAt, committedAt, verified);
    }

    /** As {@link #put(CacheKey, long, Instant, boolean)}, last used at {@code usedAt} (start-up: the file's times). */
    synchronized void put(CacheKey key, long size, Instant committedAt, Instant usedAt, boolean verified) {
        Entry entry = new Entry(size, committedAt);
        entry.usedAt = usedAt.isAfter(committedAt) ? usedAt : committedAt;
        entry.verified = verified;
        Entry previous = entries.remove(key);
        entries.put(key, entry);
        totalBytes += size - (previous == null ? 0 : previous.size);
        letGo(previous);
    }

    /** Forgets {@code key} and everything known about it. */
    synchronized void remove(CacheKey key) {
        Entry entry = entries.remove(key);
        if (entry != null) {
            totalBytes -= entry.size;
            letGo(entry);
        }
    }

    /** Whether the content at {@code key} was verified since the store opened. */
    synchronized boolean verified(CacheKey key) {
        Entry entry = entries.get(key);
        return entry != null && entry.verified;
    }

    /** Marks an indexed blob's content as verified. */
    synchronized void markVerified(CacheKey key) {
        Entry entry = entries.get(key);
        if (entry != null) {
            entry.verified = true;
        }
    }

    /**
     * Records {@code blob} as verified and opened by one more reader (indexing it if it was not), so the next
     * reader may take the hot path.
     */
    synchronized void opened(StoredBlob blob) {
        Entry entry = entries.get(blob.key());
        if (entry == null) {
            entry = new Entry(blob.size(), blob.committedAt());
            totalBytes += blob.size();
        }
        touch(blob.key(), entry);
        entry.verified = true;
        if (!blob.equals(entry.opened)) {
            letGo(entry);
        }
        entry.opened = blob;
        entry.readers++;
    }

    /**
     * The blob as last opened, when it is still indexed and verified (what the hot path may open again), pinned for
     * one more reader and marked used, as {@link #pin} does: one lookup for the hot path's check and pin.
     */
    synchronized Optional<Pinned> pinOpened(CacheKey key) {
        Entry entry = entries.get(key);
        if (entry == null || entry.opened == null) {
            return Optional.empty();
        }
        entry.readers++;
        touch(key, entry);
        return Optional.of(new Pinned(entry.opened, entry.held));
    }

    /**
     * Holds {@code content} in memory as the content of {@code blob}, when {@code blob} is still the memo of its
     * key, holds nothing yet, and the content fits within what may be held in all.
     *
     * @param content the blob's whole content, read-only
     * @return whether it is held
     */
    synchronized boolean hold(StoredBlob blob, ByteBuffer content) {
        Entry entry = entries.get(blob.key());
        if (entry == null
                || !blob.equals(entry.opened)
                || entry.held != null
                || content.remaining() != blob.size()
                || heldBytes + content.remaining() > maxHeldBytes) {
            return false;
        }
        entry.held = content;
        entry.heldSize = content.remaining();
        heldBytes += entry.heldSize;
        return true;
    }

    /** Whether content of {@code size} bytes would fit within what may be held in all, now. */
    synchronized boolean mayHold(long size) {
        return heldBytes + size <= maxHeldBytes;
    }

    /** How much content is held in memory. */
    synchronized long heldBytes() {
        return heldBytes;
    }

    /** Drops the hot path's memo of {@code key}, and the content held with it: its file no longer looks as it did. */
    synchronized void forgetOpened(CacheKey key) {
        Entry entry = entries.get(key);
        if (entry != null) {
            letGo(entry);
            entry.opened = null;
        }
    }

    /** Lets go of the content {@code entry} holds in memory, if any. */
    private void letGo(Entry entry) {
        if (entry != null && entry.held != null) {
            heldBytes -= entry.heldSize;
            entry.held = null;
            entry.heldSize = 0;
        }
    }

    /** Pins {@code key} for one more reader and marks it used; false when it is not indexed. */
    synchronized boolean pin(CacheKey key) {
        Entry entry = entries.get(key);
        if (entry == null) {
            return false;
        }
        entry.readers++;
        touch(key, entry);
        return true;
    }

    /** A reader of {@code key} is done. */
    synchronized void unpin(CacheKey key) {
        Entry entry = entries.get(key);
        if (entry != null && entry.readers > 0) {
            entry.readers--;
        }
        if (entry != null) {
            touch(key, entry);
        }
    }

    /**
     * Takes the least recently used unpinned blobs out of the index until the total is within the bound.
     *
     * @return the blobs taken out, for the caller to delete
     */
    synchronized List<CacheKey> evictOverBound() {
        List<CacheKey> victims = new ArrayList<>();
        Iterator<Map.Entry<CacheKey, Entry>> eldest = entries.entrySet().iterator();
        while (totalBytes > maxBytes && eldest.hasNext()) {
            Map.Entry<CacheKey, Entry> entry = eldest.next();
            if (entry.getValue().readers > 0) {
                continue;
            }
            eldest.remove();
            totalBytes -= entry.getValue().size;
            letGo(entry.getValue());
            evictions++;
            victims.add(entry.getKey());
        }
        return victims;
    }

    /**
     * Takes the least recently used unpinned blobs (never {@code keep}) out of the index until they add up to
     * {@code needed} bytes, provided they can; otherwise takes nothing: emptying the cache in vain helps no one.
     *
     * @return the blobs taken out, for the caller to delete; empty when they could not free enough
     */
    synchronized List<CacheKey> evictToFree(long needed, CacheKey keep) {
        List<CacheKey> victims = new ArrayList<>();
        long freed = 0;
        for (Map.Entry<CacheKey, Entry> entry : entries.entrySet()) {
            if (freed >= needed) {
                break;
            }
            if (entry.getValue().readers == 0 && !entry.getKey().equals(keep)) {
                victims.add(entry.getKey());
                freed += entry.getValue().size;
            }
        }
        if (freed < needed) {
            return List.of();
        }
        for (CacheKey victim : victims) {
            Entry entry = entries.remove(victim);
            totalBytes -= entry.size;
            letGo(entry);
            evictions++;
        }
        return victims;
    }

    /** The indexed keys, least recently used first. */
    synchronized List<CacheKey> keys() {
        return new ArrayList<>(entries.keySet());
    }

    /** Every indexed blob, least recently used first, without marking any as used. */
    synchronized List<BlobSummary> summaries() {
        List<BlobSummary> summaries = new ArrayList<>(entries.size());
        entries.forEach(
                (key, entry) -> summaries.add(new BlobSummary(key, entry.size, entry.committedAt, entry.usedAt)));
        return summaries;
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

    /** Marks {@code key} as the most recently used. */
    private void touch(CacheKey key, Entry entry) {
        entry.usedAt = clock.instant();
        entries.remove(key);
        entries.put(key, entry);
    }
}
