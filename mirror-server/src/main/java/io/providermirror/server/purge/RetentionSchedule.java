package io.providermirror.server.purge;

import io.providermirror.server.core.Futures;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link Retention} every {@code cache.retention.interval} on the mirror's executor, from one interval after
 * start-up until that executor shuts down with the mirror.
 */
public final class RetentionSchedule {

    private static final Logger LOG = LoggerFactory.getLogger(RetentionSchedule.class);

    private final Retention retention;
    private final Executor executor;
    private final Duration interval;

    public RetentionSchedule(Retention retention, Executor executor, Duration interval) {
        this.retention = retention;
        this.executor = executor;
        this.interval = interval;
    }

    /** Runs retention every interval from now on. */
    public void start() {
        LOG.info(
                "retention: archives not requested for {} are removed, checked every {}",
                retention.unusedFor(),
                interval);
        Futures.every(interval, executor, this::runOnce);
    }

    private void runOnce() {
        try {
            PurgeReport report = retention.run(false);
            if (!report.empty()) {
                LOG.info("retention: {}", report.summary());
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("retention could not run; it tries again in {}: {}", interval, e.toString());
        }
    }
}
