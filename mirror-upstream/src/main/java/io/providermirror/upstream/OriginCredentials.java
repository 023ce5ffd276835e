package io.providermirror.upstream;

import java.util.Map;
import java.util.Optional;

/**
 * The bearer token an origin registry wants, by the provider hostname it serves. Sent, as the CLI sends it,
 * to the host's discovery document and its registry API (the {@code providers.v1} base, wherever discovery
 * puts it); checksums, signatures and archives get it only when they live on one of those authorities, so a
 * token never reaches a download host on another domain.
 */
@FunctionalInterface
public interface OriginCredentials {

    Optional<String> tokenFor(String hostname);

    /** No credentials for any host. */
    OriginCredentials NONE = hostname -> Optional.empty();

    /** Tokens from a map of hostname to token. */
    static OriginCredentials of(Map<String, String> tokens) {
        Map<String, String> copy = Map.copyOf(tokens);
        return hostname -> Optional.ofNullable(copy.get(hostname));
    }
}
