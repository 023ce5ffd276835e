package io.providermirror.server.purge;

import io.providermirror.server.core.Futures;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On an instance sharing a bucket with others: reads the record of recent purges every {@code interval} and, for each
 * purge another instance made since this one started, drops what this instance holds of it (its local tier's copies,
 * what memory holds), so that the whole fleet stops serving it.
 */
public final class PurgeFollower {

    private static final Logger LOG = LoggerFactory.getLogger(PurgeFollower.class);

    private final CachePurge purge;
    private final Executor executor;
    private final Duration interval;
    private final Set<String> seen = new HashSet<>();

    public PurgeFollower(CachePurge purge, Executor executor, Duration interval) {
        this.purge = purge;
        this.executor = executor;
        this.interval = interval;
    }

    /** Takes the purges recorded so far as seen, then follows new ones every interval. */
    public void start() {
        try {
            purge.record().entries().forEach(entry -> seen.add(entry.id()));
        } catch (IOException e) {
            LOG.warn("cannot read the record of recent purges; following it from its next reading: {}", e.getMessage());
        }
        Futures.every(interval, executor, this::followOnce);
    }

    /** Applies every purge not seen yet. */
    synchronized void followOnce() {
        List<PurgeRecord.Entry> entries;
        try {
            entries = purge.record().entries();
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot read the record of recent purges; trying again in {}: {}", interval, e.getMessage());
            return;
        }
        for (PurgeRecord.Entry entry : entries) {
            if (!seen.add(entry.id())) {
                continue;
            }
            try {
                purge.follow(entry);
            } catch (IOException | RuntimeException e) {
                LOG.warn("cannot drop what this instance holds of a purge of {}: {}", entry, e.toString());
            }
        }
        if (seen.size() > 4 * PurgeRecord.KEPT) {
            seen.retainAll(entries.stream().map(PurgeRecord.Entry::id).toList());
        }
    }
}
