package io.providermirror.server.core;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.CacheKey;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Archive requests answered with a redirect to the shared store ({@code cache.s3.redirectArchives}), for provider
 * and module archives alike: only for an archive the store holds committed (so verified when it was committed);
 * anything else is served through the mirror as without redirects.
 */
public final class ArchiveRedirects {

    private static final Logger LOG = LoggerFactory.getLogger(ArchiveRedirects.class);

    private ArchiveRedirects() {}

    /**
     * A redirect to the store's copy of the archive at {@code key}, when the store holds it committed; empty when it
     * does not, or cannot be asked now (then the mirror serves the archive from its local tier if it is there).
     */
    public static Optional<ArchiveSource> find(BlobStore blobs, CacheKey key) {
        try {
            return blobs.redirect(key).map(ArchiveSource.Redirected::new);
        } catch (IOException e) {
            LOG.debug("not redirecting to {}: {}", key, e.getMessage());
            return Optional.empty();
        }
    }
}
