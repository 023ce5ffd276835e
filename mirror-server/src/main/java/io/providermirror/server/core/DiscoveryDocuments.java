package io.providermirror.server.core;

import io.providermirror.upstream.DiscoveryMemory;
import io.providermirror.upstream.RegistryService;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The service base URLs last discovered, kept in the cache directory ({@code discovery.json}) across restarts. */
final class DiscoveryDocuments implements DiscoveryMemory {

    private static final Logger LOG = LoggerFactory.getLogger(DiscoveryDocuments.class);

    private final CacheDocuments documents;

    DiscoveryDocuments(CacheDocuments documents) {
        this.documents = documents;
    }

    @Override
    public Map<RegistryService, URI> read(String hostname) {
        try {
            return documents.discovery(hostname);
        } catch (IOException e) {
            // Only a fall-back: without it, the discovery's own failure is what the caller sees.
            LOG.warn("cannot read the stored discovery result of {}: {}", hostname, e.toString());
            return Map.of();
        }
    }

    @Override
    public void write(String hostname, Map<RegistryService, URI> bases) throws IOException {
        documents.writeDiscovery(hostname, bases);
    }
}
