package io.providermirror.server.core;

import io.providermirror.cache.CacheKey;

/**
 * Ends a local fill that never fetched anything: another instance sharing the store held the fill lease and
 * committed the archive, so this instance's clients are answered from the store instead.
 */
public final class ArchiveCommittedElsewhere extends RuntimeException {

    private static final long serialVersionUID = 1L;

    ArchiveCommittedElsewhere(CacheKey key) {
        super("the archive " + key + " was committed by another instance", null, false, false);
    }
}
