package io.providermirror.upstream;

import java.io.IOException;
import java.net.URI;
import java.util.Optional;

/**
 * Where the {@code providers.v1} base URL last discovered for each host is kept across restarts, so that a
 * failing discovery falls back to it. The mirror keeps it in its cache; this module does not know the cache.
 */
public interface DiscoveryMemory {

    /** Keeps nothing: a failing discovery is a failure. */
    DiscoveryMemory NONE = new DiscoveryMemory() {
        @Override
        public Optional<URI> read(String hostname) {
            return Optional.empty();
        }

        @Override
        public void write(String hostname, URI providersBase) {
            // Nothing is kept.
        }
    };

    /** The base URL last discovered for {@code hostname}, if one is known and readable. */
    Optional<URI> read(String hostname);

    /** Keeps {@code providersBase} as the last base URL discovered for {@code hostname}. */
    void write(String hostname, URI providersBase) throws IOException;
}
