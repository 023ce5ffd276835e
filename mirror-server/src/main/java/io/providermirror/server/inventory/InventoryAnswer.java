package io.providermirror.server.inventory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** The inventory as answers give it: JSON (the operator API, {@code inventory --format json}) and CSV. */
public final class InventoryAnswer {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The CSV's columns, in order. */
    public static final String CSV_HEADER =
            "kind,address,version,platform,first_requested,last_requested,requests,clients";

    private InventoryAnswer() {}

    /** {@code {"items": [...]}}, each item with its requests and client names. */
    public static byte[] json(List<Map.Entry<UsageItem, Usage>> items) {
        List<Map<String, Object>> list = new ArrayList<>();
        for (Map.Entry<UsageItem, Usage> entry : items) {
            UsageItem item = entry.getKey();
            Usage usage = entry.getValue();
            Map<String, Object> node = new LinkedHashMap<>();
            node.put("kind", item.kind().label());
            node.put("address", item.address());
            node.put("version", item.version().toString());
            if (!item.platform().isEmpty()) {
                node.put("platform", item.platform());
            }
            node.put("firstRequested", usage.first().toString());
            node.put("lastRequested", usage.last().toString());
            node.put("requests", usage.requests());
            node.put("clients", new TreeMap<>(usage.clients()));
            list.add(node);
        }
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(Map.of("items", list));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the inventory as JSON", e);
        }
    }

    /** One line per item after {@link #CSV_HEADER}; the clients as {@code name=count} joined by {@code ;}. */
    public static String csv(List<Map.Entry<UsageItem, Usage>> items) {
        StringBuilder out = new StringBuilder(CSV_HEADER).append('\n');
        for (Map.Entry<UsageItem, Usage> entry : items) {
            UsageItem item = entry.getKey();
            Usage usage = entry.getValue();
            String clients = new TreeMap<>(usage.clients())
                    .entrySet().stream()
                            .map(e -> e.getKey() + "=" + e.getValue())
                            .collect(Collectors.joining(";"));
            out.append(String.join(
                            ",",
                            item.kind().label(),
                            item.address(),
                            item.version().toString(),
                            item.platform(),
                            usage.first().toString(),
                            usage.last().toString(),
                            Long.toString(usage.requests()),
                            cell(clients)))
                    .append('\n');
        }
        return out.toString();
    }

    /** A CSV cell: quoted when it holds a comma, a quote or a line break (client names are the operator's). */
    private static String cell(String text) {
        if (text.chars().noneMatch(c -> c == ',' || c == '"' || c == '\n' || c == '\r')) {
            return text;
        }
        return '"' + text.replace("\"", "\"\"") + '"';
    }
}
