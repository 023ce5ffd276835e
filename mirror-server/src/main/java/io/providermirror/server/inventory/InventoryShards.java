package io.providermirror.server.inventory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.StoredDocument;
import io.providermirror.model.ProviderVersion;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inventory's documents: one shard per instance, {@code _inventory/<instance>.json} in the cache's document
 * store (the bucket's, for a fleet), written only by its instance; readers merge them all. A shard holds its
 * instance's counts since the shard began, so merging adds shards without counting a request twice.
 */
public final class InventoryShards {

    /** The folder of the shards (no origin host has a {@code _}, so no provider's documents are there). */
    public static final CacheKey FOLDER = CacheKey.of("_inventory");

    private static final Logger LOG = LoggerFactory.getLogger(InventoryShards.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SUFFIX = ".json";

    private InventoryShards() {}

    /** The key of the shard of {@code instance}. */
    static CacheKey key(String instance) {
        return CacheKey.of(FOLDER.segments().get(0), instance + SUFFIX);
    }

    /**
     * One shard as read: its items, when its instance last wrote it and how many requests its instance had not
     * counted by then (its memory held {@code inventory.maxItems} items), both unknown in a shard that does not say;
     * and when each client was last seen on its instance ({@link ClientsLastSeen}).
     */
    public record Shard(
            CacheKey key,
            Map<UsageItem, Usage> items,
            Map<String, Instant> lastSeen,
            Optional<Instant> written,
            long dropped) {}

    /**
     * Writes {@code usage}, and when its clients were {@code lastSeen}, as the shard of {@code instance}, written at
     * {@code written}, with {@code dropped} requests not counted so far.
     */
    static void write(
            DocumentStore documents,
            String instance,
            Map<UsageItem, Usage> usage,
            Map<String, Instant> lastSeen,
            Instant written,
            long dropped)
            throws IOException {
        ObjectNode shard = document(instance, usage, written, dropped);
        ClientsLastSeen.write(shard, lastSeen);
        documents.write(key(instance), JSON.writeValueAsBytes(shard));
    }

    /** A shard's document. */
    static ObjectNode document(String instance, Map<UsageItem, Usage> usage, Instant written, long dropped) {
        ObjectNode shard = JSON.createObjectNode();
        shard.put("instance", instance);
        shard.put("written", written.toString());
        shard.put("dropped", dropped);
        ArrayNode items = shard.putArray("items");
        usage.forEach((item, counted) -> {
            ObjectNode node = items.addObject();
            node.put("kind", item.kind().label());
            node.put("address", item.address());
            node.put("version", item.version().toString());
            node.put("platform", item.platform());
            node.put("first", counted.first().toString());
            node.put("last", counted.last().toString());
            node.put("requests", counted.requests());
            ObjectNode clients = node.putObject("clients");
            counted.clients().forEach(clients::put);
        });
        return shard;
    }

    /** The shard of {@code instance}, if it has one. */
    static Optional<Map<UsageItem, Usage>> read(DocumentStore documents, String instance) throws IOException {
        Optional<StoredDocument> stored = documents.read(key(instance));
        return stored.isEmpty()
                ? Optional.empty()
                : Optional.of(parse(stored.get().content(), key(instance)));
    }

    /**
     * Every shard but {@code except}'s (null: every shard), merged. A shard that cannot be read is left out and
     * logged: one broken document does not hide the fleet's inventory.
     */
    public static Map<UsageItem, Usage> readAll(DocumentStore documents, String except) throws IOException {
        return readAll(documents, except, new HashMap<>());
    }

    /** As {@link #readAll(DocumentStore, String)}, taking into {@code lastSeen} the latest sighting of each client. */
    static Map<UsageItem, Usage> readAll(DocumentStore documents, String except, Map<String, Instant> lastSeen)
            throws IOException {
        Map<UsageItem, Usage> merged = new HashMap<>();
        for (Shard shard : readEach(documents, except)) {
            merge(merged, shard.items());
            ClientsLastSeen.latest(lastSeen, shard.lastSeen());
        }
        return merged;
    }

    /**
     * Every shard but {@code except}'s (null: every shard), each as read, and the retired shards' totals
     * ({@link InventoryCompaction}) as one more. The totals are read last and the shards they hold already are left
     * out, so a shard folded into them while this reads is counted once, in either.
     */
    static List<Shard> readEach(DocumentStore documents, String except) throws IOException {
        List<Shard> shards = new ArrayList<>();
        for (CacheKey key : documents.list(FOLDER)) {
            String name = key.segments().get(key.segments().size() - 1);
            if (!name.endsWith(SUFFIX) || name.equals(except + SUFFIX) || key.equals(InventoryCompaction.RETIRED)) {
                continue;
            }
            Optional<StoredDocument> stored = documents.read(key);
            if (stored.isPresent()) {
                shards.add(shard(stored.get().content(), key));
            }
        }
        Optional<StoredDocument> retired = documents.read(InventoryCompaction.RETIRED);
        if (retired.isPresent()) {
            Set<String> folded =
                    InventoryCompaction.folded(retired.get().content()).keySet();
            shards.removeIf(shard -> folded.contains(instanceOf(shard.key())));
            shards.add(shard(retired.get().content(), InventoryCompaction.RETIRED));
        }
        return shards;
    }

    /** The instance whose shard is at {@code key}. */
    static String instanceOf(CacheKey key) {
        String name = key.segments().get(key.segments().size() - 1);
        return name.endsWith(SUFFIX) ? name.substring(0, name.length() - SUFFIX.length()) : name;
    }

    static Shard shard(byte[] content, CacheKey key) {
        Map<UsageItem, Usage> items = parse(content, key);
        Optional<Instant> written = Optional.empty();
        long dropped = 0;
        try {
            JsonNode shard = JSON.readTree(content);
            written = shard.hasNonNull("written")
                    ? Optional.of(Instant.parse(shard.get("written").asText()))
                    : Optional.empty();
            dropped = shard.path("dropped").asLong();
        } catch (IOException | RuntimeException unreadable) {
            // parse has said so; the shard counts as written at an unknown time, with nothing dropped
        }
        Map<String, Instant> lastSeen = new HashMap<>();
        ClientsLastSeen.merge(lastSeen, content);
        return new Shard(key, items, Map.copyOf(lastSeen), written, dropped);
    }

    /** Adds {@code more} into {@code into}. */
    static void merge(Map<UsageItem, Usage> into, Map<UsageItem, Usage> more) {
        more.forEach((item, usage) -> into.merge(item, usage, Usage::plus));
    }

    private static Map<UsageItem, Usage> parse(byte[] content, CacheKey key) {
        Map<UsageItem, Usage> usage = new LinkedHashMap<>();
        JsonNode items;
        try {
            items = JSON.readTree(content).path("items");
        } catch (IOException e) {
            LOG.warn("the inventory shard {} is not JSON and is left out: {}", key, e.getMessage());
            return usage;
        }
        int skipped = 0;
        for (JsonNode node : items) {
            try {
                UsageItem item = UsageItem.parse(
                        UsageItem.Kind.of(node.path("kind").asText()),
                        node.path("address").asText(),
                        ProviderVersion.parse(node.path("version").asText())
                                .orElseThrow(() -> new IllegalArgumentException("version")),
                        node.path("platform").asText());
                Map<String, Long> clients = new LinkedHashMap<>();
                for (Map.Entry<String, JsonNode> client : node.path("clients").properties()) {
                    clients.put(client.getKey(), client.getValue().asLong());
                }
                usage.merge(
                        item,
                        new Usage(
                                Instant.parse(node.path("first").asText()),
                                Instant.parse(node.path("last").asText()),
                                node.path("requests").asLong(),
                                Usage.bounded(clients)),
                        Usage::plus);
            } catch (RuntimeException e) {
                skipped++;
            }
        }
        if (skipped > 0) {
            LOG.warn("left out {} malformed entries of the inventory shard {}", skipped, key);
        }
        return usage;
    }
}
