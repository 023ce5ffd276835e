package io.providermirror.server.core;

import io.providermirror.cache.ArchiveFill;
import io.providermirror.cache.BlobStore;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.FillLease;
import io.providermirror.cache.FillLeases;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.OriginException;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a local fill under the fleet's fill lease, so that instances sharing a store fetch each archive once:
 * the instance granted the lease fetches (renewing the lease until the fill ends, then releasing it); another
 * polls the store, with backoff, until the archive is committed there (its local fill then ends with
 * {@link ArchiveCommittedElsewhere} and its clients are answered from the store), or until the lease is free
 * again (its holder failed, or died and let it expire), when it takes the lease and fetches itself. A waiting
 * instance gives up after {@code upstream.archiveTimeout} plus the lease's duration: the most a healthy holder
 * takes, and the longest a dead one is mourned.
 */
final class LeasedFills {

    private static final Logger LOG = LoggerFactory.getLogger(LeasedFills.class);
    private static final long FIRST_POLL_MILLIS = 100;
    private static final long MAX_POLL_MILLIS = 2_000;

    private final FillLeases leases;
    private final BlobStore blobs;
    private final Duration waitBudget;
    private final Executor executor;
    private final Executor fillExecutor;
    private final MirrorMetrics metrics;

    /**
     * @param executor     runs the store requests of waiting and renewing
     * @param fillExecutor runs the downloads themselves
     */
    LeasedFills(
            FillLeases leases,
            BlobStore blobs,
            Duration fillDeadline,
            Executor executor,
            Executor fillExecutor,
            MirrorMetrics metrics) {
        this.leases = leases;
        this.blobs = blobs;
        this.waitBudget = fillDeadline.plus(leases.duration());
        this.executor = executor;
        this.fillExecutor = fillExecutor;
        this.metrics = metrics;
        metrics.bindFillLeases(leases);
    }

    /**
     * Starts {@code fill}: {@code fetch} (which commits or fails it) runs on the fill executor under the lease,
     * holding {@code place}; or, while another instance holds the lease, {@code place} is given back and the
     * fill waits for that instance's commit, taking a new place from {@code newPlace} should it fetch after all.
     */
    void start(
            ArchiveFill fill,
            String what,
            FillPermits.Permit place,
            Supplier<FillPermits.Permit> newPlace,
            Runnable fetch) {
        fillExecutor.execute(() -> {
            try (place) {
                Optional<FillLease> lease = acquire(fill, what);
                if (lease.isPresent()) {
                    fetchUnder(lease.get(), fill, fetch);
                } else if (!fill.completion().isDone()) {
                    metrics.fillLease("waited");
                    LOG.info("another instance is fetching {}; waiting for it to commit", what);
                    place.close();
                    poll(fill, what, newPlace, fetch, System.nanoTime() + waitBudget.toNanos(), FIRST_POLL_MILLIS);
                }
            }
        });
    }

    private Optional<FillLease> acquire(ArchiveFill fill, String what) {
        try {
            Optional<FillLease> lease = leases.tryAcquire(fill.key());
            lease.ifPresent(l -> metrics.fillLease(l.takenOver() ? "taken_over" : "acquired"));
            return lease;
        } catch (IOException | RuntimeException e) {
            fill.fail(new CacheWriteException(
                    "the mirror cannot reach its object store to coordinate fetching " + what + " (" + e.getMessage()
                            + "); nothing was fetched. An operator must check the store",
                    e));
            return Optional.empty();
        }
    }

    private void fetchUnder(FillLease lease, ArchiveFill fill, Runnable fetch) {
        try {
            if (committedBefore(lease, fill)) {
                return;
            }
            scheduleRenewal(lease, fill);
            fetch.run();
        } catch (Error e) {
            // Out of memory, a class that cannot load, in any fetch: the fill still ends, so its clients are answered
            // and the next request starts afresh instead of joining a fill that never ends.
            LOG.error("fetching {} failed", fill.key(), e);
            fill.fail(e);
            throw e;
        } finally {
            // The fill has committed (the archive is in the store) or failed by now.
            lease.release();
        }
    }

    /**
     * Whether the archive is in the store although this instance missed it: a holder commits before it releases
     * its lease, so an instance whose look came just before that commit and whose lease came after it finds the
     * commit here, once the lease is granted, and fetches nothing (its fill ends as {@link ArchiveCommittedElsewhere}).
     */
    private boolean committedBefore(FillLease lease, ArchiveFill fill) {
        try {
            if (blobs.find(lease.key()).isEmpty()) {
                return false;
            }
        } catch (IOException e) {
            fill.fail(new CacheWriteException(
                    "the mirror cannot look for " + lease.key() + " in its object store (" + e.getMessage()
                            + "); nothing was fetched. An operator must check the store",
                    e));
            return true;
        }
        metrics.fillLease("committed_elsewhere");
        fill.fail(new ArchiveCommittedElsewhere(lease.key()));
        return true;
    }

    private void scheduleRenewal(FillLease lease, ArchiveFill fill) {
        long every = Math.max(1, leases.duration().toMillis() / 3);
        CompletableFuture.runAsync(
                () -> {
                    if (fill.completion().isDone()) {
                        return;
                    }
                    try {
                        if (!lease.renew()) {
                            metrics.fillLease("lost");
                            LOG.warn(
                                    "the fill lease of {} was taken over by another instance while this one was"
                                            + " fetching it; both may fetch it (what each commits is verified)",
                                    fill.key());
                            return;
                        }
                    } catch (IOException | RuntimeException e) {
                        LOG.warn("cannot renew the fill lease of {}: {}", fill.key(), e.toString());
                    }
                    scheduleRenewal(lease, fill);
                },
                CompletableFuture.delayedExecutor(every, TimeUnit.MILLISECONDS, executor));
    }

    private void poll(
            ArchiveFill fill,
            String what,
            Supplier<FillPermits.Permit> newPlace,
            Runnable fetch,
            long deadline,
            long delayMillis) {
        CompletableFuture.runAsync(
                () -> {
                    try {
                        if (pollOnce(fill, what, newPlace, fetch, deadline)) {
                            poll(fill, what, newPlace, fetch, deadline, Math.min(MAX_POLL_MILLIS, delayMillis * 2));
                        }
                    } catch (RuntimeException e) {
                        fill.fail(e);
                    }
                },
                CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS, executor));
    }

    /** One look at the store; true when the wait goes on. */
    private boolean pollOnce(
            ArchiveFill fill, String what, Supplier<FillPermits.Permit> newPlace, Runnable fetch, long deadline) {
        CacheKey key = fill.key();
        try {
            if (blobs.find(key).isPresent()) {
                metrics.fillLease("committed_elsewhere");
                fill.fail(new ArchiveCommittedElsewhere(key));
                return false;
            }
        } catch (IOException e) {
            // The store is unreachable for now; the lease check below says the same, or the next poll does.
            LOG.debug("cannot look for {} in the store while waiting: {}", key, e.toString());
        }
        Optional<FillLease> lease = acquire(fill, what);
        if (lease.isPresent()) {
            FillPermits.Permit place;
            try {
                place = newPlace.get();
            } catch (RuntimeException e) {
                lease.get().release();
                fill.fail(e);
                return false;
            }
            fill.completion().whenComplete((blob, failure) -> place.close());
            fillExecutor.execute(() -> {
                try (place) {
                    fetchUnder(lease.get(), fill, fetch);
                }
            });
            return false;
        }
        if (fill.completion().isDone()) {
            return false;
        }
        if (System.nanoTime() - deadline > 0) {
            metrics.fillLease("wait_timeout");
            fill.fail(new OriginException(
                    OriginException.Reason.TIMEOUT,
                    "another mirror instance has been fetching " + what + " for longer than upstream.archiveTimeout"
                            + " plus the fill lease's duration (" + waitBudget.toSeconds()
                            + " s) without committing it; try again"));
            return false;
        }
        return true;
    }
}
