package io.providermirror.server.providers;

import io.providermirror.cache.CacheKey;
import io.providermirror.cache.FillLease;
import io.providermirror.cache.FillLeases;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which instance of a fleet sharing a store refreshes a stale metadata document from its origin: the one that
 * gets the document's lease (the fill leases, keyed by the document's cache key). The others keep serving
 * their stale copy, and adopt the refreshed one from the store. When the lease cannot be asked for (the store
 * is unreachable), the refresh runs anyway: a stale list must not outlive its origin because of the store.
 */
final class RefreshLease {

    private static final Logger LOG = LoggerFactory.getLogger(RefreshLease.class);

    private final FillLeases leases;

    RefreshLease(FillLeases leases) {
        this.leases = leases;
    }

    /** Runs {@code refresh} unless another instance holds the lease of {@code key}; false when it did not run. */
    boolean runIfGranted(CacheKey key, Runnable refresh) {
        Optional<FillLease> lease;
        try {
            lease = leases.tryAcquire(key);
        } catch (IOException | RuntimeException e) {
            LOG.debug("cannot ask for the refresh lease of {}; refreshing anyway: {}", key, e.toString());
            refresh.run();
            return true;
        }
        if (lease.isEmpty()) {
            return false;
        }
        try {
            refresh.run();
            return true;
        } finally {
            lease.get().release();
        }
    }
}
