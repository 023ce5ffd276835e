package io.providermirror.server.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.server.config.HostConfig;
import io.providermirror.server.config.UpstreamConfig;
import io.providermirror.upstream.OriginCredentials;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The bearer tokens of private origins, read once at start-up: {@code upstream.hosts.<host>.token} or
 * {@code tokenFile}, and, when {@code upstream.terraformCredentials} names it, the Terraform CLI's own
 * {@code credentials.tfrc.json} (what {@code terraform login} writes). The configuration wins over that file.
 */
final class ConfiguredCredentials {

    private ConfiguredCredentials() {}

    static OriginCredentials load(UpstreamConfig upstream) throws IOException {
        Map<String, String> tokens = new HashMap<>();
        if (upstream.terraformCredentials() != null) {
            tokens.putAll(fromCliFile(upstream.terraformCredentials()));
        }
        for (Map.Entry<String, HostConfig> host : upstream.hosts().entrySet()) {
            HostConfig config = host.getValue();
            if (config.token() != null) {
                tokens.put(host.getKey(), config.token());
            } else if (config.tokenFile() != null) {
                String token = read(config.tokenFile(), "upstream.hosts." + host.getKey() + ".tokenFile")
                        .trim();
                if (token.isEmpty()) {
                    throw new IOException(
                            "upstream.hosts." + host.getKey() + ".tokenFile " + config.tokenFile() + " is empty");
                }
                tokens.put(host.getKey(), token);
            }
        }
        return OriginCredentials.of(tokens);
    }

    /** {@code {"credentials": {"<host>": {"token": "..."}}}}, as the CLI keeps it. */
    private static Map<String, String> fromCliFile(Path file) throws IOException {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(read(file, "upstream.terraformCredentials"));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IOException(
                    "upstream.terraformCredentials " + file + " is not valid JSON: " + e.getOriginalMessage());
        }
        Map<String, String> tokens = new HashMap<>();
        JsonNode credentials = root == null ? null : root.get("credentials");
        if (credentials == null || !credentials.isObject()) {
            throw new IOException("upstream.terraformCredentials " + file
                    + " has no \"credentials\" object (expected the CLI's credentials.tfrc.json)");
        }
        for (Map.Entry<String, JsonNode> host : credentials.properties()) {
            JsonNode token = host.getValue().get("token");
            if (token != null && token.isTextual() && !token.asText().isBlank()) {
                // Spelt as provider and module addresses spell their host (lower case, without :443), as the CLI
                // compares them.
                tokens.put(io.providermirror.model.ProviderAddress.normalizeHostname(host.getKey()), token.asText());
            }
        }
        return tokens;
    }

    private static String read(Path file, String key) throws IOException {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IOException(key + ": cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
