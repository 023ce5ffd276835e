package io.providermirror.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The operator API's OpenAPI description ({@code openapi.yaml}, as the jar carries it) read for tests: its
 * operations, a sample path for each (its path parameters' examples put in), the responses each documents, and a
 * check of a JSON answer against a documented schema (the part of JSON Schema the description uses: {@code $ref},
 * {@code type}, {@code required}, {@code properties}, {@code additionalProperties}, {@code items}, {@code enum},
 * {@code minItems}, {@code format: date-time}).
 */
public final class OpenApiDescription {

    /** One documented operation: {@code method} in upper case, {@code path} as the description writes it. */
    public record Operation(String method, String path, JsonNode node) {

        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    private final JsonNode root;

    private OpenApiDescription(JsonNode root) {
        this.root = root;
    }

    /** The description in the jar. */
    public static OpenApiDescription load() {
        try (InputStream in = OpenApiDescription.class.getResourceAsStream(OperatorRoutes.DESCRIPTION_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("no " + OperatorRoutes.DESCRIPTION_RESOURCE + " on the class path");
            }
            return parse(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A description from its YAML text. */
    public static OpenApiDescription parse(byte[] yaml) throws IOException {
        return new OpenApiDescription(new ObjectMapper(new YAMLFactory()).readTree(yaml));
    }

    public JsonNode root() {
        return root;
    }

    /** Every operation, in the order the description lists them. */
    public List<Operation> operations() {
        List<Operation> operations = new ArrayList<>();
        root.path("paths")
                .properties()
                .forEach(path -> path.getValue().properties().forEach(method -> {
                    if (List.of("get", "put", "post", "delete", "patch", "head", "options")
                            .contains(method.getKey())) {
                        operations.add(new Operation(
                                method.getKey().toUpperCase(Locale.ROOT), path.getKey(), method.getValue()));
                    }
                }));
        return operations;
    }

    /** {@code operation}'s path with each {@code {name}} replaced by that parameter's example. */
    public String samplePath(Operation operation) {
        String path = operation.path();
        for (JsonNode parameter : operation.node().path("parameters")) {
            JsonNode resolved = resolve(parameter);
            if (resolved.path("in").asText().equals("path")) {
                JsonNode example = resolved.path("example");
                if (example.isMissingNode()) {
                    throw new AssertionError(
                            operation + ": path parameter " + resolved.path("name") + " has no example");
                }
                path = path.replace("{" + resolved.path("name").asText() + "}", example.asText());
            }
        }
        if (path.contains("{")) {
            throw new AssertionError(operation + ": a path segment has no parameter: " + path);
        }
        return path;
    }

    /** The status codes {@code operation} documents, as written ({@code 200}, {@code 5XX}). */
    public Set<String> statuses(Operation operation) {
        Set<String> statuses = new LinkedHashSet<>();
        operation.node().path("responses").fieldNames().forEachRemaining(statuses::add);
        return statuses;
    }

    /** The documented response for {@code status} (an exact code, else its range such as {@code 5XX}). */
    public Optional<JsonNode> response(Operation operation, int status) {
        JsonNode responses = operation.node().path("responses");
        JsonNode exact = responses.get(Integer.toString(status));
        if (exact == null) {
            exact = responses.get(status / 100 + "XX");
        }
        return Optional.ofNullable(exact).map(this::resolve);
    }

    /** The schema of {@code response}'s {@code mediaType} content, if it documents one. */
    public Optional<JsonNode> schema(JsonNode response, String mediaType) {
        JsonNode schema = response.path("content").path(mediaType).path("schema");
        return schema.isMissingNode() ? Optional.empty() : Optional.of(resolve(schema));
    }

    /** Follows a local {@code $ref}. */
    public JsonNode resolve(JsonNode node) {
        JsonNode current = node;
        while (current.has("$ref")) {
            String ref = current.get("$ref").asText();
            if (!ref.startsWith("#/")) {
                throw new AssertionError("only local references are read: " + ref);
            }
            current = root.at(ref.substring(1));
            if (current.isMissingNode()) {
                throw new AssertionError("a reference to nothing: " + ref);
            }
        }
        return current;
    }

    /** What in {@code value} does not fit {@code schema}, each with where it is; empty when it fits. */
    public List<String> problems(JsonNode schema, JsonNode value) {
        List<String> problems = new ArrayList<>();
        check(resolve(schema), value, "$", problems);
        return problems;
    }

    private void check(JsonNode schema, JsonNode value, String where, List<String> problems) {
        String type = schema.path("type").asText("");
        boolean fits = switch (type) {
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            case "string" -> value.isTextual();
            case "integer" -> value.isIntegralNumber();
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            case "" -> true;
            default -> throw new AssertionError("a schema type this check does not read: " + type);
        };
        if (!fits) {
            problems.add(where + ": expected " + type + ", got " + value.getNodeType());
            return;
        }
        if (schema.has("enum")) {
            boolean listed = false;
            for (JsonNode allowed : schema.get("enum")) {
                listed |= allowed.equals(value);
            }
            if (!listed) {
                problems.add(where + ": " + value + " is not one of " + schema.get("enum"));
            }
        }
        if ("date-time".equals(schema.path("format").asText()) && value.isTextual()) {
            try {
                java.time.Instant.parse(value.asText());
            } catch (java.time.format.DateTimeParseException e) {
                problems.add(where + ": not an ISO-8601 instant: " + value);
            }
        }
        if (value.isArray()) {
            if (value.size() < schema.path("minItems").asInt(0)) {
                problems.add(where + ": fewer than " + schema.get("minItems") + " items");
            }
            JsonNode items = schema.path("items");
            for (int i = 0; i < value.size(); i++) {
                if (!items.isMissingNode()) {
                    check(resolve(items), value.get(i), where + "[" + i + "]", problems);
                }
            }
        }
        if (value.isObject()) {
            for (JsonNode required : schema.path("required")) {
                if (!value.has(required.asText())) {
                    problems.add(where + ": the required field " + required.asText() + " is missing");
                }
            }
            JsonNode properties = schema.path("properties");
            JsonNode additional = schema.path("additionalProperties");
            for (Map.Entry<String, JsonNode> field : value.properties()) {
                String at = where + "." + field.getKey();
                if (properties.has(field.getKey())) {
                    check(resolve(properties.get(field.getKey())), field.getValue(), at, problems);
                } else if (additional.isBoolean() && !additional.asBoolean()) {
                    problems.add(at + ": a field the description does not document");
                } else if (additional.isObject()) {
                    check(resolve(additional), field.getValue(), at, problems);
                }
            }
        }
    }
}
