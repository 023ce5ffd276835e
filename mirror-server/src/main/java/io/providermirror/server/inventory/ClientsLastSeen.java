package io.providermirror.server.inventory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.StoredDocument;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * When each named client was last seen, as the inventory's shards keep it: the shard of an instance holds, under
 * {@value #FIELD}, each configured client's latest request on that instance (client name to time). Readers take
 * the latest per name across shards, so a sighting outlives a restart and is known to the whole fleet.
 */
final class ClientsLastSeen {

    /** The shard's field. */
    static final String FIELD = "clientsLastSeen";

    private static final ObjectMapper JSON = new ObjectMapper();

    private ClientsLastSeen() {}

    /** Puts {@code lastSeen} into {@code shard}. */
    static void write(ObjectNode shard, Map<String, Instant> lastSeen) {
        ObjectNode field = shard.putObject(FIELD);
        lastSeen.forEach((name, at) -> field.put(name, at.toString()));
    }

    /** What the shard of {@code instance} says; empty when it has none, or none that can be read. */
    static Map<String, Instant> read(DocumentStore documents, String instance) throws IOException {
        Map<String, Instant> read = new HashMap<>();
        Optional<StoredDocument> stored = documents.read(InventoryShards.key(instance));
        if (stored.isPresent()) {
            merge(read, stored.get().content());
        }
        return read;
    }

    /** Takes into {@code into} each sighting of the shard {@code content} later than the one it holds. */
    static void merge(Map<String, Instant> into, byte[] content) {
        JsonNode field;
        try {
            field = JSON.readTree(content).path(FIELD);
        } catch (IOException e) {
            return; // InventoryShards says the shard is not JSON
        }
        Map<String, Instant> read = new HashMap<>();
        for (Map.Entry<String, JsonNode> entry : field.properties()) {
            try {
                read.put(entry.getKey(), Instant.parse(entry.getValue().asText()));
            } catch (DateTimeParseException e) {
                // a malformed time is left out, as a malformed item is
            }
        }
        latest(into, read);
    }

    /** Takes into {@code into} each of {@code more} later than the one it holds. */
    static void latest(Map<String, Instant> into, Map<String, Instant> more) {
        more.forEach((name, at) -> into.merge(name, at, (a, b) -> a.isAfter(b) ? a : b));
    }
}
