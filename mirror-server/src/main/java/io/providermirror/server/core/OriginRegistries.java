package io.providermirror.server.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.StoredDocument;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.ServiceDiscovery;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each origin hostname's {@code providers.v1} base URL, discovered once and then kept: in memory for the
 * freshness period, and on disk so that a discovery failure falls back to the last known URL.
 */
final class OriginRegistries {

    private static final Logger LOG = LoggerFactory.getLogger(OriginRegistries.class);

    private final ServiceDiscovery discovery;
    private final OriginRules rules;
    private final DocumentStore documents;
    private final Cache<String, URI> bases;

    OriginRegistries(ServiceDiscovery discovery, DocumentStore documents, Duration freshness, OriginRules rules) {
        this.rules = rules;
        this.discovery = discovery;
        this.documents = documents;
        this.bases = Caffeine.newBuilder().maximumSize(10_000).expireAfterWrite(freshness).build();
    }

    /** The {@code providers.v1} base URL of {@code hostname}. */
    URI providersBase(String hostname) {
        return bases.get(hostname, this::discover);
    }

    /** Where discovery for {@code hostname} is looked up, for error messages. */
    URI discoveryUrl(String hostname) {
        return discovery.discoveryUrl(hostname);
    }

    /** The authority answering for {@code hostname}: its parent mirror's, or its discovery document's. */
    String describe(String hostname) {
        return rules.parentMirror(hostname).map(URI::getAuthority).orElseGet(() -> discoveryUrl(hostname).getAuthority());
    }

    private URI discover(String hostname) {
        try {
            URI base = discovery.providersBase(hostname);
            documents.write(CacheLayout.discovery(hostname), base.toString().getBytes(StandardCharsets.UTF_8));
            return base;
        } catch (OriginException e) {
            Optional<URI> known = stored(hostname);
            if (e.reason() == OriginException.Reason.NOT_FOUND || known.isEmpty()) {
                throw e;
            }
            LOG.warn("service discovery for {} failed ({}); using the last known registry URL {}",
                    hostname, e.getMessage(), known.get());
            return known.get();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store the discovery result of " + hostname, e);
        }
    }

    private Optional<URI> stored(String hostname) {
        try {
            return documents.read(CacheLayout.discovery(hostname))
                    .map(StoredDocument::content)
                    .map(bytes -> URI.create(new String(bytes, StandardCharsets.UTF_8)));
        } catch (IOException | IllegalArgumentException e) {
            LOG.warn("cannot read the stored discovery result of {}: {}", hostname, e.toString());
            return Optional.empty();
        }
    }
}
