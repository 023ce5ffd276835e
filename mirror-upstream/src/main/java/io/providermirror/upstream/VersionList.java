package io.providermirror.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The versions an origin lists for a provider ({@code GET :namespace/:type/versions}), keyed by canonical
 * version. Entries that are not semantic versions, and platforms that are not {@code os}/{@code arch}
 * pairs, are skipped as the CLI skips them.
 */
public record VersionList(ProviderAddress address, Map<ProviderVersion, ListedVersion> versions) {

    private static final Logger LOG = LoggerFactory.getLogger(VersionList.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern PROTOCOL = Pattern.compile("[0-9]{1,4}(\\.[0-9]{1,4}){0,2}");
    private static final int MAX_PROTOCOLS = 8;

    public VersionList {
        versions = Collections.unmodifiableMap(new LinkedHashMap<>(versions));
    }

    /** The listed version that is {@code version}, if the origin lists it. */
    public Optional<ListedVersion> find(ProviderVersion version) {
        return Optional.ofNullable(versions.get(version));
    }

    /** Parses an origin's {@code versions} response body. */
    public static VersionList parse(ProviderAddress address, byte[] body, String origin) {
        String what = "the version list of " + address + " from " + origin;
        JsonNode list = OriginJson.member(OriginJson.read(body, what), "versions");
        if (!list.isArray()) {
            throw new OriginException(OriginException.Reason.BAD_RESPONSE, what + " has no 'versions' array");
        }
        Map<ProviderVersion, ListedVersion> versions = new LinkedHashMap<>();
        for (JsonNode entry : list) {
            JsonNode text = OriginJson.member(entry, "version");
            Optional<ProviderVersion> version =
                    text.isTextual() ? ProviderVersion.parse(text.asText()) : Optional.empty();
            if (version.isEmpty()) {
                LOG.debug("{}: skipping entry with version {} (not a semantic version)", what, text);
                continue;
            }
            versions.putIfAbsent(
                    version.get(), new ListedVersion(version.get(), text.asText(), platforms(entry), protocols(entry)));
        }
        return new VersionList(address, versions);
    }

    /**
     * This list in the registry's {@code versions} form, each version in its origin's spelling, as
     * {@link #parse} reads it back.
     */
    public byte[] encode() {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode list = root.putArray("versions");
        for (ListedVersion listed : versions.values()) {
            ObjectNode entry = list.addObject().put("version", listed.originSpelling());
            if (!listed.protocols().isEmpty()) {
                listed.protocols().forEach(entry.putArray("protocols")::add);
            }
            ArrayNode platforms = entry.putArray("platforms");
            listed.platforms()
                    .forEach(p -> platforms.addObject().put("os", p.os()).put("arch", p.arch()));
        }
        try {
            return JSON.writeValueAsBytes(root);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Reads a network mirror's {@code index.json} ({@code {"versions":{"1.2.3":{}}}}) and returns it in the
     * registry's {@code versions} form, without platforms (a mirror says them per version), so it is kept and
     * read back like an origin's list.
     */
    public static byte[] fromMirrorIndex(ProviderAddress address, byte[] body, String origin) {
        String what = "the version list of " + address + " from the network mirror " + origin;
        // The versions are the keys of a map, which the CLI matches exactly.
        JsonNode versions = OriginJson.member(OriginJson.read(body, what), "versions");
        if (!versions.isObject()) {
            throw new OriginException(OriginException.Reason.BAD_RESPONSE, what + " has no 'versions' object");
        }
        ObjectNode registry = JSON.createObjectNode();
        ArrayNode list = registry.putArray("versions");
        versions.fieldNames()
                .forEachRemaining(
                        version -> list.addObject().put("version", version).putArray("platforms"));
        try {
            return JSON.writeValueAsBytes(registry);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The protocol versions an entry names ({@code "5.0"}, {@code "6"}): short strings of digits and dots only,
     * at most eight; anything else an origin writes there is left out, as it is repeated to clients. Also the
     * protocols of a download document.
     */
    static List<String> protocols(JsonNode entry) {
        List<String> protocols = new ArrayList<>();
        JsonNode list = OriginJson.member(entry, "protocols");
        if (list.isArray()) {
            for (JsonNode protocol : list) {
                String text = protocol.isTextual() ? protocol.asText() : "";
                if (PROTOCOL.matcher(text).matches() && protocols.size() < MAX_PROTOCOLS) {
                    protocols.add(text);
                } else {
                    LOG.debug("skipping protocol {}", protocol);
                }
            }
        }
        return protocols;
    }

    private static List<Platform> platforms(JsonNode entry) {
        TreeSet<Platform> platforms = new TreeSet<>();
        JsonNode list = OriginJson.member(entry, "platforms");
        if (list.isArray()) {
            for (JsonNode platform : list) {
                try {
                    platforms.add(new Platform(
                            OriginJson.member(platform, "os").asText(null),
                            OriginJson.member(platform, "arch").asText(null)));
                } catch (IllegalArgumentException e) {
                    LOG.debug("skipping platform {}: {}", platform, e.getMessage());
                }
            }
        }
        return new ArrayList<>(platforms);
    }
}
