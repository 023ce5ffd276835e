package io.providermirror.server.inventory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.FillLease;
import io.providermirror.cache.FillLeases;
import io.providermirror.cache.StoredDocument;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Folds the shards of instances that stopped writing into one document of retired totals, {@code _retired.json}
 * beside the shards, and deletes them, so that a bucket does not keep one shard per start of every instance. A shard
 * not written for {@code staleAfter} (many flush intervals: a running instance rewrites its shard at least every
 * few) is retired. One instance compacts at a time, under a lease ({@link FillLeases}, as fills are); where leases
 * are not exclusive nothing is compacted. The totals name each shard they hold (with when it was folded): a reader
 * leaves such a shard out ({@link InventoryShards#readEach}), and a second fold of it adds nothing, so a shard is
 * counted once whether a compaction stopped half-way or two ran at once; a shard is deleted only once the totals
 * that hold it are written. The totals keep, of the fields of a shard this version does not know, each object's
 * times as the latest per name (as clients' last sightings merge) and anything else as one of the folded shards
 * wrote it.
 */
public final class InventoryCompaction {

    /** The retired shards' totals (no instance name starts with {@code _}). */
    public static final CacheKey RETIRED =
            CacheKey.of(InventoryShards.FOLDER.segments().get(0), "_retired.json");

    private static final CacheKey LEASE =
            CacheKey.of(InventoryShards.FOLDER.segments().get(0), "_compaction");
    private static final Logger LOG = LoggerFactory.getLogger(InventoryCompaction.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FOLDED = "folded";
    private static final List<String> KNOWN = List.of("instance", "written", "dropped", "items", FOLDED);

    private final DocumentStore documents;
    private final FillLeases leases;
    private final Clock clock;
    private final Duration staleAfter;

    /** @param staleAfter how long a shard must have gone unwritten to be retired */
    public InventoryCompaction(DocumentStore documents, FillLeases leases, Clock clock, Duration staleAfter) {
        this.documents = documents;
        this.leases = leases;
        this.clock = clock;
        this.staleAfter = staleAfter;
    }

    /** Retires the stale shards, if this instance gets the lease; how many it retired. Blocking. */
    public int compact() throws IOException {
        if (!leases.exclusive()) {
            return 0;
        }
        Optional<FillLease> lease = leases.tryAcquire(LEASE);
        if (lease.isEmpty()) {
            return 0;
        }
        try {
            return compact(lease.get());
        } finally {
            lease.get().release();
        }
    }

    private int compact(FillLease lease) throws IOException {
        Instant now = clock.instant();
        Optional<StoredDocument> stored = documents.read(RETIRED);
        ObjectNode retired =
                stored.isPresent() ? (ObjectNode) JSON.readTree(stored.get().content()) : null;
        Map<String, Instant> folded =
                new LinkedHashMap<>(stored.map(d -> folded(d.content())).orElse(Map.of()));
        Map<UsageItem, Usage> totals = new HashMap<>();
        Instant written = Instant.EPOCH;
        long dropped = 0;
        if (stored.isPresent()) {
            InventoryShards.Shard shard = InventoryShards.shard(stored.get().content(), RETIRED);
            totals.putAll(shard.items());
            written = shard.written().orElse(Instant.EPOCH);
            dropped = shard.dropped();
        }
        List<CacheKey> stale = new ArrayList<>();
        List<String> present = new ArrayList<>();
        for (CacheKey key : documents.list(InventoryShards.FOLDER)) {
            String instance = InventoryShards.instanceOf(key);
            if (key.equals(RETIRED)
                    || instance.startsWith("_")
                    || !key.toString().endsWith(".json")) {
                continue;
            }
            present.add(instance);
            Optional<StoredDocument> shardDocument = documents.read(key);
            if (shardDocument.isEmpty()) {
                continue;
            }
            InventoryShards.Shard shard =
                    InventoryShards.shard(shardDocument.get().content(), key);
            Instant at = shard.written().orElse(shardDocument.get().storedAt());
            if (!at.isBefore(now.minus(staleAfter))) {
                continue;
            }
            stale.add(key);
            if (!folded.containsKey(instance)) {
                InventoryShards.merge(totals, shard.items());
                written = at.isAfter(written) ? at : written;
                dropped += shard.dropped();
                retired = carry(retired, JSON.readTree(shardDocument.get().content()));
                folded.put(instance, now);
            }
        }
        if (stale.isEmpty()) {
            return 0;
        }
        // Names of shards gone long ago are dropped: no instance writes a shard that long after it was folded.
        folded.entrySet()
                .removeIf(e ->
                        !present.contains(e.getKey()) && e.getValue().isBefore(now.minus(staleAfter.multipliedBy(10))));
        ObjectNode document = InventoryShards.document("_retired", totals, written, dropped);
        if (retired != null) {
            retired.properties().forEach(field -> {
                if (!KNOWN.contains(field.getKey())) {
                    document.set(field.getKey(), field.getValue());
                }
            });
        }
        ObjectNode names = document.putObject(FOLDED);
        folded.forEach((name, at) -> names.put(name, at.toString()));
        if (!lease.renew()) {
            LOG.info("another instance took over compacting the usage inventory; this one leaves it");
            return 0;
        }
        documents.write(RETIRED, JSON.writeValueAsBytes(document));
        for (CacheKey key : stale) {
            documents.delete(key);
        }
        LOG.info("folded {} usage inventory shards not written for {} into {}", stale.size(), staleAfter, RETIRED);
        return stale.size();
    }

    /** Like {@link #compact()}, logging what fails (tried again at the next interval). */
    public void compactQuietly() {
        try {
            compact();
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot compact the usage inventory's shards; tried again later: {}", e.toString());
        }
    }

    /** The shards the retired totals {@code content} hold, with when each was folded. */
    static Map<String, Instant> folded(byte[] content) {
        Map<String, Instant> folded = new HashMap<>();
        try {
            for (Map.Entry<String, JsonNode> entry :
                    JSON.readTree(content).path(FOLDED).properties()) {
                folded.put(entry.getKey(), Instant.parse(entry.getValue().asText()));
            }
        } catch (IOException | DateTimeParseException e) {
            LOG.warn("the retired usage inventory totals {} are unreadable: {}", RETIRED, e.getMessage());
        }
        return folded;
    }

    /** {@code into} with the fields of {@code shard} it does not know carried over. */
    private static ObjectNode carry(ObjectNode into, JsonNode shard) {
        ObjectNode carried = into == null ? JSON.createObjectNode() : into;
        shard.properties().forEach(field -> {
            if (KNOWN.contains(field.getKey())) {
                return;
            }
            JsonNode was = carried.get(field.getKey());
            if (field.getValue().isObject() && was != null && was.isObject()) {
                field.getValue()
                        .properties()
                        .forEach(entry -> ((ObjectNode) was)
                                .set(entry.getKey(), later(was.get(entry.getKey()), entry.getValue())));
            } else {
                carried.set(field.getKey(), field.getValue());
            }
        });
        return carried;
    }

    /** Of two values, the later time when both are times; else the one folded now. */
    private static JsonNode later(JsonNode was, JsonNode now) {
        if (was == null) {
            return now;
        }
        try {
            return Instant.parse(was.asText()).isAfter(Instant.parse(now.asText())) ? was : now;
        } catch (DateTimeParseException notTimes) {
            return now;
        }
    }
}
