package io.providermirror.server.config;

import java.nio.file.Path;
import java.util.List;

/**
 * The operator API ({@code /api/v1/} on the mirror's HTTPS listener): the SHA-256 hashes of the operator tokens (in
 * the configuration or a file, one per line, as {@code auth.tokens} takes client tokens; a client token never opens
 * it), and the largest bundle {@code POST /api/v1/imports} takes. Off unless tokens or a tokens file are given.
 */
public record OperatorConfig(List<String> tokens, Path tokensFile, DataSize maxBundleSize) {

    /** The largest bundle an import through the API takes unless {@code maxBundleSize} says otherwise. */
    public static final DataSize DEFAULT_MAX_BUNDLE_SIZE = new DataSize(16L << 30);

    public OperatorConfig {
        tokens = tokens == null ? List.of() : List.copyOf(tokens);
        for (String token : tokens) {
            if (!AuthConfig.TOKEN_HASH.matcher(token).matches()) {
                throw new IllegalArgumentException(
                        "tokens: '" + (token.length() > 12 ? token.substring(0, 8) + "..." : token)
                                + "' (expected: sha256:<64 hex digits>, the hash of an operator token as `hash-token` prints "
                                + "it; never the token itself)");
            }
        }
        maxBundleSize = maxBundleSize == null ? DEFAULT_MAX_BUNDLE_SIZE : maxBundleSize;
        if (maxBundleSize.bytes() <= 0) {
            throw new IllegalArgumentException("maxBundleSize: " + maxBundleSize.bytes() + " (expected: > 0)");
        }
    }

    /** True when operator tokens are configured: the API is served. */
    public boolean enabled() {
        return !tokens.isEmpty() || tokensFile != null;
    }
}
