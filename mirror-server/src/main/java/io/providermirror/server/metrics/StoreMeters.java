package io.providermirror.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.providermirror.cache.RemoteStoreListener;
import java.time.Duration;

/**
 * The S3 stores' requests, local tier hits and local copy reads as meters ({@link MeterNames#STORE_REQUESTS}); the
 * redirect counter is registered here at zero so that its series exists from the first scrape.
 */
public final class StoreMeters implements RemoteStoreListener {

    private final MeterRegistry registry;
    private final Counter localTierHits;
    private final Counter localCopyReads;

    public StoreMeters(MeterRegistry registry) {
        this.registry = registry;
        this.localTierHits = Counter.builder(MeterNames.STORE_LOCAL_TIER_HITS)
                .description("archive reads answered by the local tier in front of the bucket")
                .register(registry);
        this.localCopyReads = Counter.builder(MeterNames.STORE_LOCAL_COPY_READS)
                .description(
                        "metadata documents read from this instance's local copy because the bucket did not answer")
                .register(registry);
        MirrorMetrics.redirectCounter(registry);
    }

    @Override
    public void request(String operation, String outcome, Duration latency) {
        Timer.builder(MeterNames.STORE_REQUESTS)
                .description("requests to the bucket that is the cache of record")
                .tag(MeterNames.OPERATION, operation)
                .tag(MeterNames.OUTCOME, outcome)
                .register(registry)
                .record(latency);
    }

    @Override
    public void localTierHit() {
        localTierHits.increment();
    }

    @Override
    public void localCopyRead() {
        localCopyReads.increment();
    }
}
