package io.providermirror.cache;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The archives being fetched right now, so that concurrent requests for the same cold archive share one
 * origin download: the first request starts the fill, the others join it.
 */
public final class FillRegistry {

    /** A fill and whether this caller started it. */
    public record Joined(ArchiveFill fill, boolean started) {}

    private final BlobStore store;
    private final ConcurrentHashMap<CacheKey, ArchiveFill> inFlight = new ConcurrentHashMap<>();

    public FillRegistry(BlobStore store) {
        this.store = store;
    }

    /**
     * Joins the fill of {@code key}, or creates one and hands it to {@code starter}, which must eventually
     * commit or fail it. The fill leaves the registry when it ends, after its commit, so a caller that found
     * nothing in the store and arrives just after a fill ended would start a second download: before
     * creating a fill, the store is asked again, and empty is returned when the blob is committed by now. It is
     * asked only for what this instance committed ({@link BlobStore#findLocal}): the caller has just looked in a
     * shared store, and a commit by another instance since is the fill lease's to find (after it is granted).
     */
    public Optional<Joined> joinOrStart(CacheKey key, Consumer<ArchiveFill> starter) throws IOException {
        boolean[] created = new boolean[1];
        ArchiveFill fill = inFlightOrNew(key, created);
        if (fill == null) {
            return Optional.empty();
        }
        if (created[0]) {
            fill.completion().whenComplete((blob, failure) -> inFlight.remove(key, fill));
            try {
                starter.accept(fill);
            } catch (RuntimeException e) {
                fill.fail(e);
                throw e;
            }
        }
        return Optional.of(new Joined(fill, created[0]));
    }

    /**
     * The fill of {@code key} in progress, else a new one registered ({@code created} says so), else null when this
     * instance committed the blob by now. A fill that has ended but is not yet out of the registry (its removal runs
     * among its completion's callbacks, perhaps after those of a caller that saw it fail and asked again) is never
     * joined, so a failed fill is not handed to a new request: it is taken out here, and the store asked again.
     */
    private ArchiveFill inFlightOrNew(CacheKey key, boolean[] created) throws IOException {
        while (true) {
            ArchiveFill fill;
            try {
                fill = inFlight.computeIfAbsent(key, k -> {
                    try {
                        if (store.findLocal(k).isPresent()) {
                            return null;
                        }
                        created[0] = true;
                        return new ArchiveFill(k, store.create(k));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
            if (fill == null || created[0] || !fill.completion().isDone()) {
                return fill;
            }
            inFlight.remove(key, fill);
        }
    }

    /** The fill of {@code key} in progress now, if one is: to follow without starting one. */
    public Optional<ArchiveFill> running(CacheKey key) {
        return Optional.ofNullable(inFlight.get(key));
    }

    /** Whether a fill of {@code key} is in progress now (a request would join it rather than start one). */
    public boolean inProgress(CacheKey key) {
        return inFlight.containsKey(key);
    }

    /** Number of fills in progress. */
    public int size() {
        return inFlight.size();
    }
}
