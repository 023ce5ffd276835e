package io.providermirror.cache;

import java.util.Optional;

/** The leases of a store that only one instance uses: always granted, nothing stored. */
enum LocalFillLeases implements FillLeases {
    INSTANCE;

    @Override
    public Optional<FillLease> tryAcquire(CacheKey key) {
        return Optional.of(new FillLease() {
            @Override
            public CacheKey key() {
                return key;
            }

            @Override
            public boolean takenOver() {
                return false;
            }

            @Override
            public boolean renew() {
                return true;
            }

            @Override
            public void release() {
                // Nothing was stored.
            }
        });
    }

    @Override
    public java.time.Duration duration() {
        // Nothing expires: a lease of one instance lives exactly as long as its fill.
        return java.time.Duration.ofDays(1);
    }

    @Override
    public boolean exclusive() {
        return true;
    }
}
