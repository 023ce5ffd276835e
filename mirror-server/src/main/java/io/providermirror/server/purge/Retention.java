package io.providermirror.server.purge;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobSummary;
import io.providermirror.server.inventory.UsageInventory;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * {@code cache.retention.unusedFor}: removes the archives no client has requested for that long, judged by
 * {@link LastRequested}, beside the size bound. Only archives go: a provider version's verified release and a module
 * version's pin stay, so an archive requested again is fetched again and checked as before. Each run is recorded as
 * a purge is, and instances sharing the store drop their copies of what it removed ({@link PurgeFollower}).
 */
public final class Retention {

    /** What judges when each listed archive was last requested. */
    @FunctionalInterface
    public interface Judgement {
        LastRequested of(List<BlobSummary> listed) throws IOException;
    }

    private final BlobStore blobs;
    private final CachePurge purge;
    private final Duration unusedFor;
    private final Clock clock;
    private final Judgement lastRequested;

    /** Judging by the store's own index ({@link LastRequested#fromIndex}) alone. */
    public Retention(BlobStore blobs, CachePurge purge, Duration unusedFor, Clock clock) {
        this(blobs, purge, unusedFor, clock, listed -> LastRequested.fromIndex(listed));
    }

    /** @param lastRequested what judges when each listed archive was last requested */
    public Retention(BlobStore blobs, CachePurge purge, Duration unusedFor, Clock clock, Judgement lastRequested) {
        if (unusedFor.isZero() || unusedFor.isNegative()) {
            throw new IllegalArgumentException("unusedFor: " + unusedFor + " (expected: > 0)");
        }
        this.blobs = blobs;
        this.purge = purge;
        this.unusedFor = unusedFor;
        this.clock = clock;
        this.lastRequested = lastRequested;
    }

    /**
     * Retention judging by the fleet's record ({@link FleetLastRequested}): {@code inventory} read across every
     * instance's shard at each run, and this instance's index; {@code shared} when other instances serve from the
     * same store. What the mirror and the {@code retention} command run.
     */
    public static Retention ofFleet(
            BlobStore blobs,
            CachePurge purge,
            UsageInventory inventory,
            boolean shared,
            Duration unusedFor,
            Clock clock) {
        return new Retention(
                blobs,
                purge,
                unusedFor,
                clock,
                listed -> FleetLastRequested.of(inventory.fleetUsage(), listed, shared));
    }

    public Duration unusedFor() {
        return unusedFor;
    }

    /**
     * Removes (or, with {@code dryRun}, lists) every archive not requested since {@code unusedFor} ago; what cannot
     * be judged stays. Blocking.
     */
    public PurgeReport run(boolean dryRun) throws IOException {
        Instant cutoff = clock.instant().minus(unusedFor);
        List<BlobSummary> listed = blobs.list();
        LastRequested requested = lastRequested.of(listed);
        List<BlobSummary> unused = listed.stream()
                .filter(blob ->
                        requested.of(blob.key()).map(at -> at.isBefore(cutoff)).orElse(false))
                .toList();
        return purge.archives(
                "archives not requested since " + cutoff,
                unused,
                dryRun,
                "retention: not requested for " + unusedFor + " (cache.retention.unusedFor)");
    }
}
