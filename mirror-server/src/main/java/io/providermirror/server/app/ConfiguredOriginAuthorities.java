package io.providermirror.server.app;

import io.providermirror.server.config.HostConfig;
import java.net.URI;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What the configured hosts say about where each origin may go: the authorities it may use whether they are
 * internal or not (its own host, its download hosts, its discovery URL's and parent mirror's), and the discovery
 * URLs that replace {@code /.well-known/terraform.json}.
 *
 * @param internal           per origin host, the {@code host:port}s it may reach even on internal addresses
 * @param discoveryOverrides per origin host, its configured discovery URL
 */
record ConfiguredOriginAuthorities(Map<String, Set<String>> internal, Map<String, URI> discoveryOverrides) {

    static ConfiguredOriginAuthorities of(Map<String, HostConfig> hosts) {
        Map<String, URI> discoveryOverrides = new HashMap<>();
        Map<String, Set<String>> internal = new HashMap<>();
        for (Map.Entry<String, HostConfig> host : hosts.entrySet()) {
            Set<String> authorities = internal.computeIfAbsent(host.getKey(), key -> new HashSet<>());
            authorities.add(host.getKey());
            authorities.addAll(host.getValue().downloadHosts());
            if (host.getValue().discoveryUrl() != null) {
                discoveryOverrides.put(host.getKey(), host.getValue().discoveryUrl());
                authorities.add(authority(host.getValue().discoveryUrl()));
            }
            if (host.getValue().mirrorUrl() != null) {
                // A parent mirror is usually inside the company, on an internal address.
                authorities.add(authority(host.getValue().mirrorUrl()));
            }
        }
        return new ConfiguredOriginAuthorities(Map.copyOf(internal), Map.copyOf(discoveryOverrides));
    }

    /** {@code host:port} of a configured URL, the port spelled out. */
    private static String authority(URI url) {
        int port = url.getPort() != -1 ? url.getPort() : url.getScheme().equalsIgnoreCase("https") ? 443 : 80;
        return url.getHost().toLowerCase(Locale.ROOT) + ":" + port;
    }
}
