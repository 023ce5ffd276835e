package io.providermirror.server.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reads the configuration: a YAML file (optional), then environment overrides. Every key has one: the key's
 * path in upper case with {@code _} between segments, behind {@code PROVIDER_MIRROR_}; for example
 * {@code server.tls.privateKey} is {@code PROVIDER_MIRROR_SERVER_TLS_PRIVATEKEY}. A value is read as YAML,
 * so {@code PROVIDER_MIRROR_UPSTREAM_HOSTS='{registry.terraform.io: {discoveryUrl: "https://..."}}'} sets a
 * map. Unknown keys and variables, and invalid values, stop start-up with a message that names them.
 */
public final class ConfigLoader {

    /** The prefix of environment overrides. */
    public static final String ENV_PREFIX = "PROVIDER_MIRROR_";

    /**
     * Variables with the prefix that are not configuration keys: the operator token the commands present to a
     * running mirror (the configuration holds hashes of tokens, never a token).
     */
    public static final java.util.Set<String> NOT_KEYS = java.util.Set.of(ENV_PREFIX + "OPERATOR_TOKEN");

    /** The start of a record's own message: {@code key: } (a key's name, or names joined by " and "). */
    private static final java.util.regex.Pattern OWN_KEY =
            java.util.regex.Pattern.compile("([A-Za-z][A-Za-z0-9]*(?: and [A-Za-z][A-Za-z0-9]*)?): ");

    private final Map<String, String> environment;
    private final YAMLMapper yaml;

    public ConfigLoader(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
        SimpleModule values = new SimpleModule("values");
        values.addDeserializer(Duration.class, new DurationDeserializer());
        values.addDeserializer(DataSize.class, new DataSizeDeserializer());
        values.addDeserializer(Path.class, new PathDeserializer(System.getProperty("user.home")));
        this.yaml = YAMLMapper.builder()
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .addModule(values)
                .build();
    }

    /** Every configuration key, by its environment variable name. */
    public static Map<String, String> environmentNames() {
        Map<String, String> names = new LinkedHashMap<>();
        collectKeys(MirrorConfig.class, "", names);
        return names;
    }

    private static void collectKeys(Class<?> type, String prefix, Map<String, String> names) {
        for (RecordComponent component : type.getRecordComponents()) {
            String key = prefix + component.getName();
            if (component.getType().isRecord() && component.getType() != DataSize.class) {
                collectKeys(component.getType(), key + ".", names);
            } else {
                names.put(ENV_PREFIX + key.replace('.', '_').toUpperCase(Locale.ROOT), key);
            }
        }
    }

    /** Loads the configuration from {@code file} (or defaults when null) and the environment. */
    public MirrorConfig load(Path file) throws ConfigException {
        return bind(file == null ? JsonNodeFactory.instance.objectNode() : readFile(file), file);
    }

    private MirrorConfig bind(ObjectNode tree, Path file) throws ConfigException {
        Map<String, String> fromEnvironment = applyEnvironment(tree);
        try {
            return yaml.treeToValue(tree, MirrorConfig.class);
        } catch (JsonProcessingException e) {
            throw new ConfigException(blameVariable(describe(e, file), e, fromEnvironment));
        } catch (java.io.UncheckedIOException e) {
            if (e.getCause() instanceof JsonProcessingException processing) {
                throw new ConfigException(blameVariable(describe(processing, file), processing, fromEnvironment));
            }
            throw new ConfigException("invalid configuration: " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("invalid configuration: " + e.getMessage(), e);
        }
    }

    /**
     * Puts the environment variable in front of a message about a key it set ({@code NAME=value: ...}), so a
     * user looks in the environment rather than in a file that does not hold the value.
     */
    private static String blameVariable(
            String message, JsonProcessingException e, Map<String, String> fromEnvironment) {
        if (!(e instanceof JsonMappingException mapping)) {
            return message;
        }
        String key = path(mapping);
        for (Map.Entry<String, String> set : fromEnvironment.entrySet()) {
            if (key.equals(set.getKey()) || key.startsWith(set.getKey() + ".") || key.startsWith(set.getKey() + "[")) {
                return set.getValue() + ": " + message;
            }
        }
        return message;
    }

    /**
     * Loads the configuration from YAML text and the environment, as {@link #load} does from a file; for
     * tests and tools that build a configuration in memory.
     */
    public MirrorConfig loadText(String yamlText) throws ConfigException {
        JsonNode node;
        try {
            node = yaml.readTree(yamlText);
        } catch (JsonProcessingException e) {
            throw new ConfigException("the configuration is not valid YAML: " + e.getOriginalMessage());
        }
        ObjectNode tree = node == null || node.isMissingNode() || node.isNull()
                ? JsonNodeFactory.instance.objectNode()
                : requireMapping(node, "the configuration");
        return bind(tree, null);
    }

    private static ObjectNode requireMapping(JsonNode node, String source) throws ConfigException {
        if (!node.isObject()) {
            throw new ConfigException(
                    source + " must hold a YAML mapping (server:, cache:, upstream:, management:, logging:)");
        }
        return (ObjectNode) node;
    }

    private ObjectNode readFile(Path file) throws ConfigException {
        JsonNode node;
        try {
            node = yaml.readTree(file.toFile());
        } catch (JsonProcessingException e) {
            throw new ConfigException("configuration file " + file + " is not valid YAML: " + e.getOriginalMessage());
        } catch (IOException e) {
            if (e instanceof NoSuchFileException || !file.toFile().exists()) {
                throw new ConfigException("configuration file " + file + " does not exist");
            }
            throw new ConfigException("cannot read configuration file " + file + ": " + e.getMessage(), e);
        }
        if (node == null || node.isMissingNode() || node.isNull()) {
            return JsonNodeFactory.instance.objectNode();
        }
        return requireMapping(node, "configuration file " + file);
    }

    /** Sets every {@code PROVIDER_MIRROR_*} variable's key; returns each key set with {@code NAME=value}. */
    private Map<String, String> applyEnvironment(ObjectNode tree) throws ConfigException {
        Map<String, String> applied = new LinkedHashMap<>();
        Map<String, String> known = environmentNames();
        for (Map.Entry<String, String> variable : environment.entrySet()) {
            String name = variable.getKey();
            if (!name.startsWith(ENV_PREFIX) || NOT_KEYS.contains(name)) {
                continue;
            }
            String key = known.get(name);
            if (key == null) {
                throw new ConfigException("unknown environment variable " + name + " (expected one of: "
                        + String.join(", ", known.keySet()) + ")");
            }
            if (variable.getValue().isEmpty()) {
                continue;
            }
            JsonNode value;
            try {
                value = yaml.readTree(variable.getValue());
            } catch (JsonProcessingException e) {
                throw new ConfigException(
                        name + " (configuration key '" + key + "') is not a valid value: " + e.getOriginalMessage());
            }
            set(tree, key, value, name);
            applied.put(key, name + "=" + variable.getValue());
        }
        return applied;
    }

    private static void set(ObjectNode tree, String key, JsonNode value, String variable) throws ConfigException {
        String[] segments = key.split("\\.");
        ObjectNode node = tree;
        for (int i = 0; i < segments.length - 1; i++) {
            JsonNode child = node.get(segments[i]);
            if (child == null || child.isNull()) {
                child = node.putObject(segments[i]);
            } else if (!child.isObject()) {
                throw new ConfigException("cannot apply " + variable + ": configuration key '"
                        + String.join(".", List.of(segments).subList(0, i + 1)) + "' is not a mapping in the file");
            }
            node = (ObjectNode) child;
        }
        node.set(segments[segments.length - 1], value);
    }

    private static String describe(JsonProcessingException e, Path file) {
        String source = file == null ? "the configuration" : "configuration file " + file;
        if (!(e instanceof JsonMappingException mapping)) {
            return source + " is invalid: " + e.getOriginalMessage();
        }
        String key = path(mapping);
        if (e instanceof UnrecognizedPropertyException unknown) {
            String known = unknown.getKnownPropertyIds() == null
                    ? ""
                    : unknown.getKnownPropertyIds().stream()
                            .map(Object::toString)
                            .sorted()
                            .collect(Collectors.joining(", "));
            return source + ": unknown configuration key '" + key + "' (expected one of: " + known + ")";
        }
        if (e instanceof ValueInstantiationException && e.getCause() != null) {
            // The records say "key: value (expected: ...)" about their own key; join it to the path.
            String reason = e.getCause().getMessage();
            java.util.regex.Matcher own = OWN_KEY.matcher(reason);
            if (own.lookingAt()) {
                String parent = key.isEmpty() ? "" : key + ".";
                return source + ": configuration key '" + parent + own.group(1) + "': " + reason.substring(own.end());
            }
            return source + ": configuration key '" + key + "': " + reason;
        }
        if (e instanceof InvalidFormatException invalid) {
            return source + ": configuration key '" + key + "': '" + invalid.getValue() + "' is not valid (expected: "
                    + expected(invalid.getTargetType()) + ")";
        }
        if (e instanceof MismatchedInputException mismatched && mismatched.getTargetType() != null) {
            return source + ": configuration key '" + key + "' has the wrong kind of value (expected: "
                    + expected(mismatched.getTargetType()) + ")";
        }
        return source + ": configuration key '" + key + "': " + e.getOriginalMessage();
    }

    /** A key's path as users write it: {@code policy.allow[0].provider}. */
    private static String path(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference reference : e.getPath()) {
            if (reference.getFieldName() != null) {
                path.append(path.length() == 0 ? "" : ".").append(reference.getFieldName());
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    private static String expected(Class<?> type) {
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            return "a whole number";
        }
        if (type == Duration.class) {
            return "a duration such as 30s, 15m or 2h";
        }
        if (type == DataSize.class) {
            return "a size such as 50GiB, 500MB or a number of bytes";
        }
        if (type == Path.class) {
            return "a file path";
        }
        if (type == java.net.URI.class) {
            return "a URL";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (java.util.Collection.class.isAssignableFrom(type)) {
            return "a list: one '- item' per line, or [item, item]";
        }
        if (type.isRecord() || Map.class.isAssignableFrom(type)) {
            return "a mapping of keys";
        }
        return type.getSimpleName();
    }
}
