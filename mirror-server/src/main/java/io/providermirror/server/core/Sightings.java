package io.providermirror.server.core;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.io.IOException;
import java.time.Instant;
import java.util.Collection;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way {@link VersionSightings} are read and written: when the mirror first saw each version of a provider or
 * a module ({@code sightings.json} beside its version list), and when the origin signed the provider releases it
 * verified; what {@link ReleaseAge} judges a version's age by. A sightings document that cannot be read counts as
 * none, one that cannot be stored leaves what was stored before; both are logged. Blocking.
 */
public final class Sightings {

    private static final Logger LOG = LoggerFactory.getLogger(Sightings.class);

    /** How one provider's or module's sightings are read. */
    private interface Reading {
        Optional<VersionSightings> read() throws IOException;
    }

    /** How one provider's or module's sightings are stored, merged with what is stored: what was stored is returned. */
    private interface Writing {
        VersionSightings write(VersionSightings sightings) throws IOException;
    }

    private final CacheDocuments documents;

    public Sightings(CacheDocuments documents) {
        this.documents = documents;
    }

    /** What the cache holds of {@code address}; empty when nothing, or when it cannot be read (logged). */
    public Optional<VersionSightings> read(ProviderAddress address) {
        return read(() -> documents.sightings(address), address.toString());
    }

    /** What the cache holds of the module {@code address}; empty when nothing, or when it cannot be read (logged). */
    public Optional<VersionSightings> read(ModuleAddress address) {
        return read(() -> documents.sightings(address), "module " + address);
    }

    /**
     * The sightings of {@code address} with {@code listed} seen at {@code now}, stored when that adds any; what was
     * stored before when it cannot be stored.
     */
    public Optional<VersionSightings> sighted(
            ProviderAddress address, Collection<ProviderVersion> listed, Instant now) {
        return sighted(
                () -> documents.sightings(address),
                sightings -> documents.writeSightings(address, sightings),
                address.toString(),
                listed,
                now);
    }

    /** As {@link #sighted(ProviderAddress, Collection, Instant)}, for a module. */
    public Optional<VersionSightings> sighted(ModuleAddress address, Collection<ProviderVersion> listed, Instant now) {
        return sighted(
                () -> documents.sightings(address),
                sightings -> documents.writeSightings(address, sightings),
                "module " + address,
                listed,
                now);
    }

    /** The stored sightings with {@code version} signed at {@code at}, stored; empty when none are stored. */
    public Optional<VersionSightings> signed(ProviderAddress address, ProviderVersion version, Instant at) {
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

    private static Optional<VersionSightings> read(Reading reading, String what) {
        try {
            return reading.read();
        } catch (IOException e) {
            LOG.warn("cannot read when the versions of {} were first seen: {}", what, e.getMessage());
            return Optional.empty();
        }
    }

    private static Optional<VersionSightings> sighted(
            Reading reading, Writing writing, String what, Collection<ProviderVersion> listed, Instant now) {
        Optional<VersionSightings> earlier = read(reading, what);
        if (earlier.isPresent() && !earlier.get().lacksAny(listed)) {
            return earlier;
        }
        VersionSightings updated = VersionSightings.update(earlier, listed, now);
        try {
            return Optional.of(writing.write(updated));
        } catch (IOException e) {
            LOG.warn("cannot store when the versions of {} were first seen: {}", what, e.getMessage());
            return earlier;
        }
    }
}
