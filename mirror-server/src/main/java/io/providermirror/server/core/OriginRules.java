package io.providermirror.server.core;

import io.providermirror.server.config.HostConfig;
import io.providermirror.upstream.verify.SignaturePolicy;
import java.net.URI;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;

/**
 * What the operator configured for each origin host, as the pull-through code asks it: how the host's
 * releases must be signed, and whether another network mirror stands in for it.
 */
public final class OriginRules {

    /** No host configured: the CLI's rules everywhere. */
    public static final OriginRules NONE = new OriginRules(Map.of());

    private final Map<String, HostConfig> hosts;

    public OriginRules(Map<String, HostConfig> hosts) {
        this.hosts = Map.copyOf(hosts);
        for (Map.Entry<String, HostConfig> host : hosts.entrySet()) {
            // Fails start-up, through the configuration's error handling, on a malformed pin.
            signaturePolicy(host.getKey());
        }
    }

    /**
     * How {@code hostname}'s releases must be vouched for: signed under its keys' rules, or, with a
     * {@code mirrorUrl}, by that network mirror only. Every reader of evidence (fills, start-up, import) goes
     * through this, so parent-mirror evidence is trusted for no host but one configured with a parent.
     */
    public SignaturePolicy signaturePolicy(String hostname) {
        HostConfig host = hosts.get(hostname);
        SignaturePolicy fallback = SignaturePolicy.defaultFor(hostname);
        if (host == null) {
            return fallback;
        }
        boolean allowUnsigned = host.allowUnsigned() == null ? fallback.allowUnsigned() : host.allowUnsigned();
        try {
            return new SignaturePolicy(allowUnsigned, new HashSet<>(host.trustedKeys()), host.mirrorUrl());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("upstream.hosts." + hostname + "." + e.getMessage(), e);
        }
    }

    /** The network mirror configured to stand in for {@code hostname}, if any. */
    public Optional<URI> parentMirror(String hostname) {
        HostConfig host = hosts.get(hostname);
        return host == null ? Optional.empty() : Optional.ofNullable(host.mirrorUrl());
    }

    /**
     * Why requests for {@code hostname} (normalised, as in provider addresses) are refused before any origin is
     * asked, if they are: an IP address, or another port of a configured host, that is not configured itself. An
     * unconfigured address must not make the mirror a port scanner, and a port alias must not dodge the rules of
     * the host it aliases.
     */
    public Optional<String> hostRefusal(String hostname) {
        if (hosts.containsKey(hostname)) {
            return Optional.empty();
        }
        // Either way round: host:8444 when host:8443 is configured, and host (port 443) when only host:8443 is.
        String bare = io.providermirror.model.ProviderAddress.hostWithoutPort(hostname);
        Optional<String> configured = hosts.keySet().stream()
                .filter(key -> io.providermirror.model.ProviderAddress.hostWithoutPort(key)
                        .equals(bare))
                .findFirst();
        if (configured.isPresent()) {
            return Optional.of(hostname + " is another port of the configured host " + configured.get()
                    + "; the mirror serves it only when upstream.hosts configures " + hostname + " itself");
        }
        if (bare.chars().allMatch(c -> c == '.' || c >= '0' && c <= '9')) {
            return Optional.of(hostname + " is an IP address that is not configured under upstream.hosts; origins at "
                    + "IP addresses (internal addresses above all) are contacted only when configured");
        }
        return Optional.empty();
    }
}
