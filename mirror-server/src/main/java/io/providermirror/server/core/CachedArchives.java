package io.providermirror.server.core;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.CacheKey;
import io.providermirror.server.metrics.MirrorMetrics;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an archive request is answered from the cache, for provider and module archives alike: a redirect to the
 * shared store when it redirects and holds the archive committed ({@link ArchiveRedirects}), else the archive the
 * store verified before, opened on the caller's thread (one open(2): the hot path), else the store's blocking open on
 * the executor; each lookup counted as a hit or a miss. What the cache lacks is the caller's to fetch. A store that
 * cannot open an archive fails with a {@link CacheReadException} naming it (a 503 on every face).
 */
public final class CachedArchives {

    private static final Logger LOG = LoggerFactory.getLogger(CachedArchives.class);

    private final BlobStore blobs;
    private final Executor executor;
    private final MirrorMetrics metrics;
    private final MirrorMetrics.LookupKind kind;

    /**
     * @param kind what the lookups are counted as
     */
    public CachedArchives(BlobStore blobs, Executor executor, MirrorMetrics metrics, MirrorMetrics.LookupKind kind) {
        this.blobs = blobs;
        this.executor = executor;
        this.metrics = metrics;
        this.kind = kind;
    }

    /**
     * The archive at {@code key} as the cache answers it (a redirect, or its bytes), else what {@code absent}
     * makes of it: a fill from its origin, started on the executor once the cache was found not to hold it.
     */
    public CompletableFuture<ArchiveSource> get(CacheKey key, Supplier<CompletableFuture<ArchiveSource>> absent) {
        if (!blobs.redirects()) {
            Optional<ArchiveSource> verified = openVerified(key);
            if (verified.isPresent()) {
                // Hot path, on the caller's (event loop) thread: a warm archive needs one open(2), as in nginx.
                metrics.cacheLookup(kind, MirrorMetrics.LookupResult.HIT);
                return CompletableFuture.completedFuture(verified.get());
            }
        }
        // cache.s3.redirectArchives: an archive committed in the bucket is read from there by the client; a cold one is
        // served as ever (its client is waiting already), and redirected once committed.
        return CompletableFuture.supplyAsync(
                        () -> blobs.redirects()
                                ? ArchiveRedirects.find(blobs, key).or(() -> open(key))
                                : open(key),
                        executor)
                .thenCompose(cached -> {
                    metrics.cacheLookup(
                            kind,
                            cached.isPresent() ? MirrorMetrics.LookupResult.HIT : MirrorMetrics.LookupResult.MISS);
                    return cached.isPresent() ? CompletableFuture.completedFuture(cached.get()) : absent.get();
                });
    }

    /**
     * The committed archive at {@code key}, opened for reading, if the store holds it: blocking.
     *
     * @throws CacheReadException when the store cannot open it
     */
    public Optional<ArchiveSource> open(CacheKey key) {
        try {
            return blobs.open(key).map(ArchiveSource.Cached::new);
        } catch (IOException e) {
            // The client gets a 503; the operator gets what failed here, once per failed request.
            LOG.error("the cache cannot open {}", key, e);
            throw new CacheReadException(
                    "the mirror cannot read " + key + " from its cache (" + e.getMessage()
                            + "); an operator must check the cache's disk or store",
                    e);
        }
    }

    private Optional<ArchiveSource> openVerified(CacheKey key) {
        try {
            return blobs.openVerified(key).map(ArchiveSource.Cached::new);
        } catch (IOException e) {
            // Not an answer: the blocking open says what is wrong.
            return Optional.empty();
        }
    }
}
