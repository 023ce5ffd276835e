package io.providermirror.server.core;

import io.providermirror.cache.ArchiveFill;
import io.providermirror.cache.BlobStore;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.FillLeases;
import io.providermirror.cache.FillRegistry;
import io.providermirror.cache.InsufficientStorageException;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.verify.VerificationException;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches from origins into the archive store, for provider archives and module content (archives and git trees)
 * alike: one fill per archive however many ask ({@link FillRegistry}), by one instance of those sharing a store
 * ({@link LeasedFills}), each holding a place ({@link FillPermits}: so many in all, fewer per origin host, so no
 * host can take every place) on the fill pool, and copied within {@link FillBounds} ({@link ArchiveCopy}).
 */
public final class OriginFills {

    private static final Logger LOG = LoggerFactory.getLogger(OriginFills.class);

    private final FillRegistry fills;
    private final LeasedFills leased;
    private final FillPermits permits;
    private final ArchiveCopy copy;
    private final FillLeases leases;
    private final MirrorMetrics metrics;
    private final RememberedFailures remembered;

    /**
     * @param maxArchiveBytes the largest archive fetched ({@code upstream.maxArchiveBytes})
     * @param executor        runs the store requests of waiting for and renewing fill leases
     * @param fillExecutor    runs the fetches themselves: at least {@link FillBounds#maxConcurrent()} threads, so a
     *     fetch that holds a place never queues
     */
    public OriginFills(
            FillBounds bounds,
            long maxArchiveBytes,
            BlobStore blobs,
            FillLeases leases,
            Executor executor,
            Executor fillExecutor,
            MirrorMetrics metrics,
            RememberedFailures remembered) {
        this.remembered = remembered;
        this.fills = new FillRegistry(blobs);
        this.leased = new LeasedFills(leases, blobs, bounds.deadline(), executor, fillExecutor, metrics);
        this.permits = new FillPermits(bounds, metrics);
        this.copy = new ArchiveCopy(bounds, maxArchiveBytes, metrics);
        this.leases = leases;
        this.metrics = metrics;
        metrics.bindStore(blobs, fills);
    }

    /** The bounded copy of an origin's body into a fill. */
    public ArchiveCopy copy() {
        return copy;
    }

    /** Which instance sharing the store fetches what. */
    public FillLeases leases() {
        return leases;
    }

    /** The fill of {@code key} in progress now, if one is. */
    public Optional<ArchiveFill> running(CacheKey key) {
        return fills.running(key);
    }

    /**
     * Joins the fill of {@code key}, or starts one that runs {@code fetch} (which commits or fails it) on the fill
     * pool, holding a place for {@code host}; empty when the archive was committed meanwhile. Joining costs no
     * place.
     *
     * @param subject what the archive is of, for messages ("the archive of " + subject)
     * @throws VerificationException the archive failed verification a moment ago ({@link RememberedFailures})
     * @throws CapacityException  when no place is free (for the host, or at all), or the disk is full
     * @throws CacheWriteException when the store cannot make the temporary object
     */
    public Optional<FillRegistry.Joined> joinOrStart(
            CacheKey key, String host, String subject, Consumer<ArchiveFill> fetch) {
        String what = "the archive of " + subject;
        remembered.refuseIfRemembered(key, host);
        // Starting a download needs a place (taken here when the download ended between the two looks).
        FillPermits.Permit permit = fills.inProgress(key) ? null : permits.acquire(host, what);
        Optional<FillRegistry.Joined> joined;
        try {
            joined = fills.joinOrStart(key, fill -> {
                FillPermits.Permit place = permit != null ? permit : permits.acquire(host, what);
                // The place is free once the archive is committed or failed, before its last byte reaches a
                // client (what follows the commit holds no socket or temporary file).
                fill.completion().whenComplete((blob, failure) -> {
                    place.close();
                    remembered.record(key, failure);
                });
                leased.start(fill, what, place, () -> permits.acquire(host, what), () -> fetch.accept(fill));
            });
        } catch (InsufficientStorageException e) {
            closeQuietly(permit);
            metrics.refused("disk", host);
            LOG.error("not fetching {} from {}: {}", what, host, e.getMessage());
            throw new CapacityException(
                    CapacityException.Limit.DISK,
                    "the mirror has no room in its cache for "
                            + what + " from " + host + ": " + e.getMessage()
                            + ". An operator must free disk space or lower cache.minFreeSpace",
                    FillPermits.RETRY_AFTER);
        } catch (IOException e) {
            closeQuietly(permit);
            throw cacheWriteFailed(subject, e);
        } catch (RuntimeException e) {
            closeQuietly(permit);
            throw e;
        }
        if (joined.isEmpty() || !joined.get().started()) {
            closeQuietly(permit);
        }
        return joined;
    }

    /** The failure of writing the archive of {@code subject} to the cache. */
    public static CacheWriteException cacheWriteFailed(String subject, IOException e) {
        return new CacheWriteException(
                "the mirror cannot write the archive of " + subject + " to its cache (" + e.getMessage()
                        + "); nothing was stored. An operator must check the cache directory's disk",
                e);
    }

    private static void closeQuietly(FillPermits.Permit permit) {
        if (permit != null) {
            permit.close();
        }
    }

    /** Forgets every verification failure remembered for a key under {@code prefix} (its first segments). */
    public void forgetFailuresUnder(java.util.List<String> prefix) {
        remembered.forgetUnder(prefix);
    }
}
