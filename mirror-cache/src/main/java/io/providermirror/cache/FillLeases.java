package io.providermirror.cache;

import java.io.IOException;
import java.util.Optional;

/**
 * Who may fetch a cold archive from its origin when several mirror instances share one store: the instance
 * that holds the fill lease of a key fetches and commits it; the others wait for the commit (and take the
 * lease over when it expires, its holder having died). Within one instance, {@link FillRegistry} already
 * makes one fill per key; this seam is what makes it one per fleet.
 */
public interface FillLeases {

    /**
     * The lease of {@code key} for this instance: granted when nobody holds it, or when its holder let it
     * expire (a takeover); empty while another instance holds a live one.
     */
    Optional<FillLease> tryAcquire(CacheKey key) throws IOException;

    /**
     * Whether a lease excludes every other instance. False when the store ignores conditional writes (found at
     * start-up): leases are then advisory, two instances that ask at the same moment may both be granted, and
     * the fleet may fetch an archive more than once (what it commits is still verified and identical).
     */
    boolean exclusive();

    /** How long a lease lasts unless renewed; its holder renews it well within that while it fills. */
    java.time.Duration duration();

    /** One instance's leases: always granted, since {@link FillRegistry} already single-flights its fills. */
    static FillLeases local() {
        return LocalFillLeases.INSTANCE;
    }
}
