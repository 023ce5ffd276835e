package io.providermirror.server.providers;

import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.VersionSightings;
import java.io.IOException;
import java.time.Instant;
import java.util.Collection;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the mirror first saw each version of a provider, and when the origin signed the releases it verified
 * ({@code sightings.json} beside the version list): what the release-age quarantine judges a provider version's age
 * by. Blocking.
 */
final class ProviderSightings {

    private static final Logger LOG = LoggerFactory.getLogger(ProviderSightings.class);

    private final CacheDocuments documents;

    ProviderSightings(CacheDocuments documents) {
        this.documents = documents;
    }

    /** What the cache holds; empty when nothing, or when it cannot be read (logged). */
    Optional<VersionSightings> read(ProviderAddress address) {
        try {
            return documents.sightings(address);
        } catch (IOException e) {
            LOG.warn("cannot read when the versions of {} were first seen: {}", address, e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * The sightings of {@code address} with {@code listed} seen at {@code now}, stored when that adds any; what was
     * stored before when it cannot be stored.
     */
    Optional<VersionSightings> sighted(ProviderAddress address, Collection<ProviderVersion> listed, Instant now) {
        Optional<VersionSightings> earlier = read(address);
        if (earlier.isPresent() && !earlier.get().lacksAny(listed)) {
            return earlier;
        }
        VersionSightings updated = VersionSightings.update(earlier, listed, now);
        try {
            return Optional.of(documents.writeSightings(address, updated));
        } catch (IOException e) {
            LOG.warn("cannot store when the versions of {} were first seen: {}", address, e.getMessage());
            return earlier;
        }
    }

    /** The stored sightings with {@code version} signed at {@code at}, stored; empty when none are stored. */
    Optional<VersionSightings> signed(ProviderAddress address, ProviderVersion version, Instant at) {
        Optional<VersionSightings> stored = read(address);
        if (stored.isEmpty()) {
            return Optional.empty();
        }
        VersionSightings updated = stored.get().withSigned(version, at);
        try {
            updated = documents.writeSightings(address, updated);
        } catch (IOException e) {
            LOG.warn("cannot store when {} {} was signed: {}", address, version, e.getMessage());
        }
        return Optional.of(updated);
    }
}
