package io.providermirror.upstream;

import java.io.IOException;
import java.net.URI;
import java.util.Map;

/**
 * Where the base URLs last discovered for each host are kept across restarts, so that a failing discovery falls
 * back to them. The mirror keeps them in its cache; this module does not know the cache.
 */
public interface DiscoveryMemory {

    /** Keeps nothing: a failing discovery is a failure. */
    DiscoveryMemory NONE = new DiscoveryMemory() {
        @Override
        public Map<RegistryService, URI> read(String hostname) {
            return Map.of();
        }

        @Override
        public void write(String hostname, Map<RegistryService, URI> bases) {
            // Nothing is kept.
        }
    };

    /** The base URLs last discovered for {@code hostname}, by service: empty when none is known or readable. */
    Map<RegistryService, URI> read(String hostname);

    /** Keeps {@code bases} as the base URLs last discovered for {@code hostname}, in place of those before. */
    void write(String hostname, Map<RegistryService, URI> bases) throws IOException;
}
