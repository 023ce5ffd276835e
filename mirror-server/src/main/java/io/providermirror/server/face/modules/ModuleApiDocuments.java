package io.providermirror.server.face.modules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.OriginJson;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Reads the full module registry API's documents from an origin (already read by {@link OriginJson}) field by field:
 * only the fields the mirror passes on, each checked for its type, into new trees the mirror writes itself. Nothing
 * an origin sent reaches a client unread; a field of the wrong type is left out. Fields are found as the CLI's
 * decoder finds them ({@link OriginJson#member}).
 */
final class ModuleApiDocuments {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** The fields of a module part (the root module, a submodule, an example) that are passed on, by kind. */
    private static final List<String> PART_TEXT = List.of("path", "readme");

    private static final List<String> INPUT_TEXT = List.of("name", "type", "description", "default");
    private static final List<String> OUTPUT_TEXT = List.of("name", "description");
    private static final List<String> DEPENDENCY_TEXT = List.of("name", "source", "version");
    private static final List<String> PROVIDER_DEPENDENCY_TEXT = List.of("name", "namespace", "source", "version");
    private static final List<String> RESOURCE_TEXT = List.of("name", "type");

    /** A paginated answer's {@code meta}, as far as the origin gave it (links are the mirror's own). */
    record Meta(OptionalInt limit, OptionalInt currentOffset, OptionalInt nextOffset, OptionalInt prevOffset) {}

    /** A list, search or latest-for-every-system answer: its paging and its modules, each read as facts. */
    record Listing(Meta meta, List<ModuleFacts> modules) {}

    /**
     * A module version's details: its facts, its parts ({@code root}, {@code submodules}, {@code examples}) and
     * {@code providers} as rewritten trees, and the {@code versions} the origin lists.
     */
    record Details(ModuleFacts facts, ObjectNode parts, List<ProviderVersion> versions) {}

    private ModuleApiDocuments() {}

    /** A list answer ({@code {"meta":{...},"modules":[...]}}) of {@code hostname}'s registry. */
    static Listing listing(String hostname, JsonNode answer) {
        JsonNode meta = OriginJson.member(answer, "meta");
        List<ModuleFacts> modules = new ArrayList<>();
        for (JsonNode item : OriginJson.member(answer, "modules")) {
            facts(hostname, item).ifPresent(modules::add);
        }
        return new Listing(
                new Meta(
                        offset(meta, "limit"),
                        offset(meta, "current_offset"),
                        offset(meta, "next_offset"),
                        offset(meta, "prev_offset")),
                List.copyOf(modules));
    }

    /** A version's details answer; empty when it names no valid module version. */
    static Optional<Details> details(String hostname, JsonNode answer) {
        Optional<ModuleFacts> facts = facts(hostname, answer);
        if (facts.isEmpty()) {
            return Optional.empty();
        }
        ObjectNode parts = NODES.objectNode();
        JsonNode root = OriginJson.member(answer, "root");
        if (root.isObject()) {
            parts.set("root", part(root));
        }
        for (String list : List.of("submodules", "examples")) {
            JsonNode items = OriginJson.member(answer, list);
            if (items.isArray()) {
                ArrayNode copied = parts.putArray(list);
                items.forEach(item -> {
                    if (item.isObject()) {
                        copied.add(part(item));
                    }
                });
            }
        }
        JsonNode providers = OriginJson.member(answer, "providers");
        if (providers.isArray()) {
            ArrayNode copied = parts.putArray("providers");
            providers.forEach(provider -> {
                if (provider.isTextual() && ModuleAddress.isValidName(provider.textValue())) {
                    copied.add(provider.textValue());
                }
            });
        }
        List<ProviderVersion> versions = new ArrayList<>();
        for (JsonNode version : OriginJson.member(answer, "versions")) {
            if (version.isTextual()) {
                ProviderVersion.parse(version.textValue()).ifPresent(versions::add);
            }
        }
        return Optional.of(new Details(facts.get(), parts, List.copyOf(versions)));
    }

    /** One module version of an answer, if it names a valid one of {@code hostname}'s registry. */
    static Optional<ModuleFacts> facts(String hostname, JsonNode item) {
        Optional<String> namespace = text(item, "namespace");
        Optional<String> name = text(item, "name");
        Optional<String> system = text(item, "provider");
        Optional<ProviderVersion> version = text(item, "version").flatMap(ProviderVersion::parse);
        if (namespace.isEmpty() || name.isEmpty() || system.isEmpty() || version.isEmpty()) {
            return Optional.empty();
        }
        ModuleAddress address;
        try {
            address = new ModuleAddress(hostname, namespace.get(), name.get(), system.get());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        JsonNode downloads = OriginJson.member(item, "downloads");
        JsonNode verified = OriginJson.member(item, "verified");
        return Optional.of(new ModuleFacts(
                address,
                version.get(),
                text(item, "owner"),
                text(item, "description"),
                text(item, "published_at").flatMap(ModuleApiDocuments::instant),
                downloads.canConvertToExactIntegral() && downloads.isIntegralNumber() && downloads.asLong() >= 0
                        ? OptionalLong.of(downloads.asLong())
                        : OptionalLong.empty(),
                verified.isBoolean() ? Optional.of(verified.booleanValue()) : Optional.empty()));
    }

    /** The answer's fields of {@code facts}, in the public registry's order; {@code source} is the mirror's. */
    static ObjectNode render(ModuleFacts facts, ModuleLinks links) {
        ObjectNode node = fields(facts);
        node.put("source", links.download(facts.address(), facts.version()));
        return node;
    }

    /** The fields of {@code facts} without {@code source}: also the form the cache keeps them in. */
    static ObjectNode fields(ModuleFacts facts) {
        ObjectNode node = NODES.objectNode();
        ModuleAddress address = facts.address();
        node.put("id", address.registryPath() + "/" + facts.version());
        facts.owner().ifPresent(owner -> node.put("owner", owner));
        node.put("namespace", address.namespace());
        node.put("name", address.name());
        node.put("version", facts.version().toString());
        node.put("provider", address.system());
        facts.description().ifPresent(description -> node.put("description", description));
        facts.publishedAt().ifPresent(published -> node.put("published_at", published.toString()));
        facts.downloads().ifPresent(downloads -> node.put("downloads", downloads));
        facts.verified().ifPresent(verified -> node.put("verified", verified));
        return node;
    }

    /** RFC 3339 text as an instant; empty when it is not one. */
    static Optional<Instant> instant(String text) {
        try {
            return Optional.of(OffsetDateTime.parse(text).toInstant());
        } catch (DateTimeException e) {
            return Optional.empty();
        }
    }

    private static ObjectNode part(JsonNode from) {
        ObjectNode part = NODES.objectNode();
        copyText(from, part, PART_TEXT);
        JsonNode empty = OriginJson.member(from, "empty");
        if (empty.isBoolean()) {
            part.put("empty", empty.booleanValue());
        }
        copyObjects(from, part, "inputs", INPUT_TEXT, true);
        copyObjects(from, part, "outputs", OUTPUT_TEXT, false);
        copyObjects(from, part, "dependencies", DEPENDENCY_TEXT, false);
        copyObjects(from, part, "provider_dependencies", PROVIDER_DEPENDENCY_TEXT, false);
        copyObjects(from, part, "resources", RESOURCE_TEXT, false);
        return part;
    }

    private static void copyObjects(
            JsonNode from, ObjectNode to, String name, List<String> textFields, boolean required) {
        JsonNode items = OriginJson.member(from, name);
        if (!items.isArray()) {
            return;
        }
        ArrayNode copied = to.putArray(name);
        for (JsonNode item : items) {
            if (!item.isObject()) {
                continue;
            }
            ObjectNode entry = copied.addObject();
            copyText(item, entry, textFields);
            JsonNode flag = OriginJson.member(item, "required");
            if (required && flag.isBoolean()) {
                entry.put("required", flag.booleanValue());
            }
        }
    }

    private static void copyText(JsonNode from, ObjectNode to, List<String> names) {
        names.forEach(name -> text(from, name).ifPresent(value -> to.put(name, value)));
    }

    private static Optional<String> text(JsonNode from, String name) {
        JsonNode value = OriginJson.member(from, name);
        return value.isTextual() ? Optional.of(value.textValue()) : Optional.empty();
    }

    private static OptionalInt offset(JsonNode meta, String name) {
        JsonNode value = OriginJson.member(meta, name);
        return value.isIntegralNumber() && value.canConvertToInt() && value.intValue() >= 0
                ? OptionalInt.of(value.intValue())
                : OptionalInt.empty();
    }
}
