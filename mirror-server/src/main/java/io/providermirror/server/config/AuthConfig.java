package io.providermirror.server.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Access control on the front: the SHA-256 hashes of the bearer tokens clients may present (plain in {@code
 * tokens}, named and optionally limited in {@code clients}, or in a file, one per line), how long a signed archive
 * URL stays valid, and the key archive URLs are signed with (generated in the cache directory when not given; give
 * one to several instances behind a load balancer). Off unless tokens, clients or a tokens file are given.
 */
public record AuthConfig(
        List<String> tokens,
        Path tokensFile,
        Duration archiveUrlTtl,
        Path urlSigningKeyFile,
        List<ClientConfig> clients) {

    /** How a token's hash is written: {@code sha256:} and 64 lower-case hex digits. */
    public static final Pattern TOKEN_HASH = Pattern.compile("sha256:[0-9a-f]{64}");

    public static final Duration DEFAULT_ARCHIVE_URL_TTL = Duration.ofMinutes(10);

    @com.fasterxml.jackson.annotation.JsonCreator(mode = com.fasterxml.jackson.annotation.JsonCreator.Mode.PROPERTIES)
    public AuthConfig {
        tokens = tokens == null ? List.of() : List.copyOf(tokens);
        for (String token : tokens) {
            if (!TOKEN_HASH.matcher(token).matches()) {
                throw new IllegalArgumentException(
                        "tokens: '" + abbreviate(token) + "' (expected: sha256:<64 hex digits>, "
                                + "the hash of a token as `provider-mirror hash-token` prints it; never the token itself)");
            }
        }
        clients = clients == null ? List.of() : List.copyOf(clients);
        java.util.Set<String> names = new java.util.HashSet<>();
        for (ClientConfig client : clients) {
            if (!names.add(client.name())) {
                throw new IllegalArgumentException(
                        "clients: the name '" + client.name() + "' is given twice (expected: each name once)");
            }
        }
        archiveUrlTtl = archiveUrlTtl == null ? DEFAULT_ARCHIVE_URL_TTL : archiveUrlTtl;
        if (archiveUrlTtl.isZero() || archiveUrlTtl.isNegative()) {
            throw new IllegalArgumentException("archiveUrlTtl: " + archiveUrlTtl + " (expected: > 0)");
        }
    }

    /** Plain tokens and a tokens file, no named clients. */
    public AuthConfig(List<String> tokens, Path tokensFile, Duration archiveUrlTtl, Path urlSigningKeyFile) {
        this(tokens, tokensFile, archiveUrlTtl, urlSigningKeyFile, null);
    }

    public boolean enabled() {
        return !tokens.isEmpty() || !clients.isEmpty() || tokensFile != null;
    }

    static String abbreviate(String text) {
        return text.length() > 12 ? text.substring(0, 8) + "..." : text;
    }
}
