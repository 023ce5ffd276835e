package io.providermirror.server.config;

import java.net.URI;
import java.util.Locale;

/** Settings for one origin hostname. */
public record HostConfig(URI discoveryUrl) {

    public HostConfig {
        if (discoveryUrl != null) {
            String scheme = discoveryUrl.getScheme() == null ? "" : discoveryUrl.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("https") || scheme.equals("http")) || discoveryUrl.getHost() == null) {
                throw new IllegalArgumentException("discoveryUrl: '" + discoveryUrl
                        + "' (expected: an absolute https URL such as https://registry.example.com/)");
            }
        }
    }
}
