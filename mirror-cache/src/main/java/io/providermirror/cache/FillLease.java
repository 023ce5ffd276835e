package io.providermirror.cache;

import java.io.IOException;

/** A granted fill lease, which its holder renews while it fills and releases when the fill ends either way. */
public interface FillLease {

    CacheKey key();

    /** Whether this lease was taken over from a holder that let it expire. */
    boolean takenOver();

    /**
     * Extends the lease by its duration from now.
     *
     * @return false when the lease was lost (it expired and another instance took it over): the fill may still
     *     commit, as what it commits is verified, but another instance is fetching the same archive
     */
    boolean renew() throws IOException;

    /** Gives the lease up (after the commit, or when the fill failed); never throws. */
    void release();
}
