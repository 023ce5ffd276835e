package io.providermirror.server.purge;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobSummary;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;

/**
 * {@code cache.retention.unusedFor}: removes the archives no client has requested for that long, judged by
 * {@link LastRequested} (by default the archive store's index, the record its size bound evicts by), beside that
 * bound. Only archives go: a provider version's verified release and a module version's pin stay, so an archive
 * requested again is fetched again and checked as before. Each run is recorded as a purge is.
 */
public final class Retention {

    private final BlobStore blobs;
    private final CachePurge purge;
    private final Duration unusedFor;
    private final Clock clock;
    private final Function<List<BlobSummary>, LastRequested> lastRequested;

    /** Judging by the store's own index ({@link LastRequested#fromIndex}). */
    public Retention(BlobStore blobs, CachePurge purge, Duration unusedFor, Clock clock) {
        this(blobs, purge, unusedFor, clock, LastRequested::fromIndex);
    }

    /** @param lastRequested what judges when each listed archive was last requested */
    public Retention(
            BlobStore blobs,
            CachePurge purge,
            Duration unusedFor,
            Clock clock,
            Function<List<BlobSummary>, LastRequested> lastRequested) {
        if (unusedFor.isZero() || unusedFor.isNegative()) {
            throw new IllegalArgumentException("unusedFor: " + unusedFor + " (expected: > 0)");
        }
        this.blobs = blobs;
        this.purge = purge;
        this.unusedFor = unusedFor;
        this.clock = clock;
        this.lastRequested = lastRequested;
    }

    public Duration unusedFor() {
        return unusedFor;
    }

    /** Removes (or, with {@code dryRun}, lists) every archive not requested since {@code unusedFor} ago. Blocking. */
    public PurgeReport run(boolean dryRun) throws IOException {
        Instant cutoff = clock.instant().minus(unusedFor);
        List<BlobSummary> listed = blobs.list();
        LastRequested requested = lastRequested.apply(listed);
        List<BlobSummary> unused = listed.stream()
                .filter(blob -> requested.of(blob.key()).orElse(blob.lastUsed()).isBefore(cutoff))
                .toList();
        return purge.archives(
                "archives not requested since " + cutoff,
                unused,
                dryRun,
                "retention: not requested for " + unusedFor + " (cache.retention.unusedFor)");
    }
}
