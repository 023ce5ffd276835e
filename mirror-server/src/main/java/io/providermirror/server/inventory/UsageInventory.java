package io.providermirror.server.inventory;

import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.StoredDocument;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's usage inventory: {@link #record} counts a request in memory (no I/O, at the time of the
 * mirror's clock), bounded to {@code maxItems} items; {@link #flush} writes the counts as this instance's shard
 * ({@link InventoryShards}) and reads the other instances' shards. {@link #fleet} answers for every instance
 * sharing the store, reading their shards now; {@link #recent} without I/O, with the others as of the last flush.
 */
public final class UsageInventory implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(UsageInventory.class);
    /** A running instance writes its shard at least every this many flush intervals. */
    public static final int REWRITE_FLUSHES = 10;

    private final DocumentStore documents;
    /** This instance's shard's name; a new one once its shard was retired while it ran. */
    private volatile String instance;

    private final Clock clock;
    private final int maxItems;
    private final ConcurrentHashMap<UsageItem, Tally> tallies = new ConcurrentHashMap<>();
    private final AtomicBoolean changed = new AtomicBoolean();
    private final AtomicLong dropped = new AtomicLong();
    /** The other instances' shards, merged, as read last. */
    private volatile Map<UsageItem, Usage> others = Map.of();
    /** Each configured client's latest request on this instance (the epoch when none), kept in memory elsewhere. */
    private final Supplier<Map<String, Instant>> sightings;
    /** This instance's sightings as its shard held them at start-up: a restart keeps them. */
    private final Map<String, Instant> keptLastSeen;
    /** The sightings this instance's shard was last written with. */
    private volatile Map<String, Instant> writtenLastSeen = Map.of();
    /** The other instances' sightings, the latest per client, as read last. */
    private volatile Map<String, Instant> othersLastSeen = Map.of();

    private ScheduledExecutorService flusher;
    /** When this instance last wrote its shard; null before its first write. */
    private volatile Instant lastWritten;
    /** What this instance last wrote to its shard. */
    private volatile Map<UsageItem, Usage> written = Map.of();
    /** How often the shard is written even when nothing was counted, so it is never taken for stale. */
    private volatile Duration rewriteEvery;

    /**
     * One item's counts, changed in place under its own lock by every request (no record, map or copy per request);
     * {@link #usage()} makes the {@link Usage} when the counts are read. The client names are bounded as
     * {@link Usage#plus} bounds them.
     */
    private static final class Tally {
        private Instant first;
        private Instant last;
        private long requests;
        private Map<String, Long> clients = new LinkedHashMap<>();

        Tally(Usage usage) {
            if (usage != null) {
                first = usage.first();
                last = usage.last();
                requests = usage.requests();
                clients.putAll(usage.clients());
            }
        }

        synchronized void add(Instant at, String client) {
            if (requests == 0) {
                first = at;
                last = at;
            } else if (at.isBefore(first)) {
                first = at;
            } else if (at.isAfter(last)) {
                last = at;
            }
            requests++;
            if (clients.merge(client, 1L, Long::sum) == 1L && clients.size() > Usage.MAX_CLIENTS) {
                clients = new LinkedHashMap<>(Usage.bounded(clients));
            }
        }

        synchronized Usage usage() {
            return requests == 0 ? null : new Usage(first, last, requests, clients);
        }

        /** Takes out {@code folded}, counted elsewhere now; nothing left when it held no more. */
        synchronized void subtract(Usage folded) {
            if (requests == 0) {
                return;
            }
            requests -= folded.requests();
            folded.clients().forEach((name, count) -> clients.merge(name, -count, Long::sum));
            clients.values().removeIf(count -> count <= 0);
            if (requests < 1) {
                requests = 0;
                clients.clear();
            }
        }
    }

    /**
     * This instance's inventory over {@code documents}, continuing the shard {@code instance} left there (a mirror
     * on its own directory keeps one shard across restarts).
     *
     * @param instance this instance's name among those sharing the store: its shard's name
     * @param maxItems how many items memory holds; requests of further items are not counted (and say so)
     */
    public UsageInventory(DocumentStore documents, String instance, Clock clock, int maxItems) {
        this(documents, instance, clock, maxItems, Map::of);
    }

    /**
     * As the other constructor, keeping in the shard when each configured client was last seen here ({@code
     * sightings}: each configured client's name with its latest request on this instance, the epoch when none).
     */
    public UsageInventory(
            DocumentStore documents,
            String instance,
            Clock clock,
            int maxItems,
            Supplier<Map<String, Instant>> sightings) {
        if (maxItems < 1) {
            throw new IllegalArgumentException("maxItems: " + maxItems + " (expected: > 0)");
        }
        this.documents = documents;
        this.instance = instance;
        this.clock = clock;
        this.maxItems = maxItems;
        this.sightings = sightings;
        Map<String, Instant> kept = Map.of();
        try {
            InventoryShards.read(documents, instance)
                    .ifPresent(usage -> usage.forEach((item, counted) -> tallies.put(item, new Tally(counted))));
            kept = ClientsLastSeen.read(documents, instance);
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot read this instance's inventory shard; it starts empty: {}", e.toString());
        }
        this.keptLastSeen = Map.copyOf(kept);
        this.writtenLastSeen = keptLastSeen;
    }

    /** Counts a request for {@code item} by {@code client}, now. Memory only: cheap enough for every request. */
    public void record(UsageItem item, String client) {
        Tally tally = tallies.get(item);
        if (tally == null) {
            if (tallies.size() >= maxItems) {
                if (dropped.getAndIncrement() == 0) {
                    LOG.warn(
                            "the usage inventory holds {} items (inventory.maxItems); requests of further items are "
                                    + "not counted",
                            maxItems);
                }
                changed.set(true); // the next flush says so, with its time: retention then keeps what it cannot judge
                return;
            }
            tally = tallies.computeIfAbsent(item, key -> new Tally(null));
        }
        tally.add(clock.instant(), client);
        changed.set(true);
    }

    /** Requests not counted because memory held {@code maxItems} items already. */
    public long dropped() {
        return dropped.get();
    }

    /** This instance's counts. */
    public Map<UsageItem, Usage> local() {
        Map<UsageItem, Usage> copy = new HashMap<>();
        tallies.forEach((item, tally) -> {
            Usage usage = tally.usage();
            if (usage != null) {
                copy.put(item, usage);
            }
        });
        return copy;
    }

    /**
     * Writes this instance's shard when something was counted, or a client seen, since the last write, and reads
     * the others'.
     */
    public void flush() throws IOException {
        Map<String, Instant> seen = lastSeenHere();
        Instant now = clock.instant();
        Instant last = lastWritten;
        boolean due = last != null && rewriteEvery != null && !now.isBefore(last.plus(rewriteEvery));
        if (changed.getAndSet(false) || due || !seen.equals(writtenLastSeen)) {
            try {
                if (due && !now.isBefore(last.plus(rewriteEvery.multipliedBy(3)))) {
                    leaveRetiredShard(); // cut off long enough for a compaction to have taken this shard for stale
                }
                Map<UsageItem, Usage> counts = local();
                InventoryShards.write(documents, instance, counts, seen, now, dropped.get());
                written = counts;
                lastWritten = now;
                writtenLastSeen = seen;
            } catch (IOException | RuntimeException e) {
                changed.set(true);
                throw e;
            }
        }
        readOthers();
    }

    /**
     * When a compaction folded this instance's shard into the retired totals (it could not write it for that long):
     * takes what it last wrote, which the totals hold now, out of its counts, and goes on under a new shard name.
     */
    private void leaveRetiredShard() throws IOException {
        Optional<StoredDocument> retired = documents.read(InventoryCompaction.RETIRED);
        if (retired.isEmpty()
                || !InventoryCompaction.folded(retired.get().content()).containsKey(instance)) {
            return;
        }
        written.forEach((item, folded) -> {
            Tally tally = tallies.get(item);
            if (tally != null) {
                tally.subtract(folded);
            }
        });
        String was = instance;
        instance = was + "-"
                + Long.toHexString(
                        java.util.concurrent.ThreadLocalRandom.current().nextLong() >>> 32);
        LOG.warn(
                "this instance's inventory shard {} was retired while it could not write it; counting on as {}",
                was,
                instance);
    }

    /** The fleet's inventory now: this instance's counts and every other shard, read now. */
    public Map<UsageItem, Usage> fleet() throws IOException {
        readOthers();
        return recent();
    }

    private void readOthers() throws IOException {
        Map<String, Instant> lastSeen = new HashMap<>();
        others = InventoryShards.readAll(documents, instance, lastSeen);
        othersLastSeen = Map.copyOf(lastSeen);
    }

    /** Each client's latest request on this instance, this run or an earlier one; never-seen ones left out. */
    private Map<String, Instant> lastSeenHere() {
        Map<String, Instant> seen = new HashMap<>(keptLastSeen);
        Map<String, Instant> now = new HashMap<>(sightings.get());
        now.values().removeIf(at -> !at.isAfter(Instant.EPOCH));
        ClientsLastSeen.latest(seen, now);
        return Map.copyOf(seen);
    }

    /**
     * When each client was last seen anywhere in the fleet: the latest of this instance's sightings (now, and those
     * its shard held at start-up) and the other instances' shards (as of the last read); a client never seen is not
     * in it.
     */
    public Map<String, Instant> clientsLastSeen() {
        Map<String, Instant> latest = new HashMap<>(othersLastSeen);
        ClientsLastSeen.latest(latest, lastSeenHere());
        return latest;
    }

    /**
     * The fleet's inventory now, with when an instance last may have missed a request: what retention judges by. A
     * shard that does not say when it was written, but says it missed requests, missed them as late as now.
     */
    public FleetUsage fleetUsage() throws IOException {
        Optional<Instant> lastMissed = dropped.get() > 0 ? Optional.of(clock.instant()) : Optional.empty();
        Map<UsageItem, Usage> merged = new HashMap<>();
        for (InventoryShards.Shard shard : InventoryShards.readEach(documents, instance)) {
            InventoryShards.merge(merged, shard.items());
            if (shard.dropped() > 0) {
                Instant missed = shard.written().orElse(clock.instant());
                lastMissed = lastMissed.filter(known -> known.isAfter(missed)).or(() -> Optional.of(missed));
            }
        }
        others = Map.copyOf(merged);
        InventoryShards.merge(merged, local());
        return new FleetUsage(merged, lastMissed);
    }

    /** The fleet's inventory without I/O: this instance's counts now, the others' as of the last read. */
    public Map<UsageItem, Usage> recent() {
        Map<UsageItem, Usage> merged = new HashMap<>(others);
        InventoryShards.merge(merged, local());
        return merged;
    }

    /**
     * When a client last requested {@code item} anywhere in the fleet (as of the last read of the other shards), or
     * empty when none did: what a retention rule asks before removing something.
     */
    public Optional<Instant> lastRequested(UsageItem item) {
        Tally tally = tallies.get(item);
        Usage mine = tally == null ? null : tally.usage();
        Usage theirs = others.get(item);
        if (mine == null || theirs == null) {
            return Optional.ofNullable(mine != null ? mine : theirs).map(Usage::last);
        }
        return Optional.of(mine.last().isAfter(theirs.last()) ? mine.last() : theirs.last());
    }

    /**
     * Flushes every {@code interval} on a thread of its own until closed, writing the shard at least every
     * {@link #REWRITE_FLUSHES} intervals once it has one, so that {@link InventoryCompaction} never takes a running
     * instance's shard for stale.
     */
    public synchronized void start(Duration interval) {
        if (flusher != null) {
            return;
        }
        rewriteEvery = interval.multipliedBy(REWRITE_FLUSHES);
        flusher = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "mirror-inventory");
            thread.setDaemon(true);
            return thread;
        });
        long millis = Math.max(1, interval.toMillis());
        flusher.scheduleWithFixedDelay(this::flushQuietly, millis, millis, TimeUnit.MILLISECONDS);
    }

    private void flushQuietly() {
        try {
            flush();
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot write the usage inventory's shard (kept in memory, tried again later): {}", e.toString());
        }
    }

    /** Stops the periodic flush and writes what was counted since the last one. */
    @Override
    public synchronized void close() {
        if (flusher != null) {
            flusher.shutdownNow();
            flusher = null;
        }
        if (changed.get() || !lastSeenHere().equals(writtenLastSeen)) {
            flushQuietly();
        }
    }
}
