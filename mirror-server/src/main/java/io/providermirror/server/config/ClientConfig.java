package io.providermirror.server.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * One named client of {@code auth.clients} (or a line of {@code auth.tokensFile}): a name for the access log, the
 * metrics and the operator API (a team, a CI system), the SHA-256 of its token, and optionally what it may reach:
 * globs over origin hosts ({@code hosts}) and over provider and module namespaces ({@code namespaces}). An empty list
 * limits nothing.
 */
public record ClientConfig(String name, String token, List<String> hosts, List<String> namespaces) {

    /** How a client's name is written: lowercase letters, digits, {@code -}, {@code _} and {@code .}, at most 64. */
    public static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

    /** Names the mirror gives requests itself, which no client may take. */
    public static final List<String> RESERVED_NAMES = List.of("anonymous", "other");

    private static final Pattern HOST_PATTERN = Pattern.compile("[a-z0-9.*?:-]{1,255}");
    private static final Pattern NAMESPACE_PATTERN = Pattern.compile("[a-z0-9_*?-]{1,64}");

    @JsonCreator(mode = JsonCreator.Mode.PROPERTIES)
    public ClientConfig {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name: '" + (name == null ? "" : name) + "' (expected: 1 to 64 "
                    + "lowercase letters, digits, '-', '_' or '.', starting with a letter or digit, e.g. ci-main)");
        }
        if (RESERVED_NAMES.contains(name)) {
            throw new IllegalArgumentException(
                    "name: '" + name + "' is the mirror's own name for requests of no client (expected another)");
        }
        if (token == null || !AuthConfig.TOKEN_HASH.matcher(token).matches()) {
            throw new IllegalArgumentException("token: '" + AuthConfig.abbreviate(token == null ? "" : token)
                    + "' (expected: sha256:<64 hex digits>, the hash of a token as `provider-mirror hash-token` "
                    + "prints it; never the token itself)");
        }
        hosts = patterns(
                hosts, HOST_PATTERN, "hosts", "a host name glob such as registry.terraform.io or *.example.com");
        namespaces =
                patterns(namespaces, NAMESPACE_PATTERN, "namespaces", "a namespace glob such as hashicorp or team-*");
    }

    private static List<String> patterns(List<String> given, Pattern shape, String key, String expected) {
        if (given == null) {
            return List.of();
        }
        List<String> lowered = given.stream()
                .map(value -> value == null ? "" : value.strip().toLowerCase(Locale.ROOT))
                .toList();
        for (String value : lowered) {
            if (!shape.matcher(value).matches()) {
                throw new IllegalArgumentException(key + ": '" + value + "' (expected: " + expected + ")");
            }
        }
        return lowered;
    }

    /** The name a plain {@code sha256:<hex>} token gets: {@code token-} and the hash's first 8 hex digits. */
    public static String plainTokenName(String hash) {
        return "token-" + hash.substring("sha256:".length(), "sha256:".length() + 8);
    }

    /** A plain token: named after its hash, limited to nothing. */
    public static ClientConfig plain(String hash) {
        return new ClientConfig(plainTokenName(hash), hash, List.of(), List.of());
    }
}
