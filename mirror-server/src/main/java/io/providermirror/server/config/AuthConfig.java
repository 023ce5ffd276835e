package io.providermirror.server.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Access control on the front: the SHA-256 hashes of the bearer tokens clients may present (in the
 * configuration or a file, one per line), how long a signed archive URL stays valid, and the key archive URLs
 * are signed with (generated in the cache directory when not given; give one to several instances behind a
 * load balancer). Off unless tokens or a tokens file are given.
 */
public record AuthConfig(List<String> tokens, Path tokensFile, Duration archiveUrlTtl, Path urlSigningKeyFile) {

    /** How a token's hash is written: {@code sha256:} and 64 lower-case hex digits. */
    public static final Pattern TOKEN_HASH = Pattern.compile("sha256:[0-9a-f]{64}");

    public static final Duration DEFAULT_ARCHIVE_URL_TTL = Duration.ofMinutes(10);

    public AuthConfig {
        tokens = tokens == null ? List.of() : List.copyOf(tokens);
        for (String token : tokens) {
            if (!TOKEN_HASH.matcher(token).matches()) {
                throw new IllegalArgumentException(
                        "tokens: '" + abbreviate(token) + "' (expected: sha256:<64 hex digits>, "
                                + "the hash of a token as `provider-mirror hash-token` prints it; never the token itself)");
            }
        }
        archiveUrlTtl = archiveUrlTtl == null ? DEFAULT_ARCHIVE_URL_TTL : archiveUrlTtl;
        if (archiveUrlTtl.isZero() || archiveUrlTtl.isNegative()) {
            throw new IllegalArgumentException("archiveUrlTtl: " + archiveUrlTtl + " (expected: > 0)");
        }
    }

    public boolean enabled() {
        return !tokens.isEmpty() || tokensFile != null;
    }

    private static String abbreviate(String text) {
        return text.length() > 12 ? text.substring(0, 8) + "..." : text;
    }
}
