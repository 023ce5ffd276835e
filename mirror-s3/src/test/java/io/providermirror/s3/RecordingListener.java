package io.providermirror.s3;

import io.providermirror.cache.RemoteStoreListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/** A listener that keeps what it hears, for tests. */
final class RecordingListener implements RemoteStoreListener {

    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final AtomicLong localTierHits = new AtomicLong();
    private final AtomicLong localCopyReads = new AtomicLong();

    @Override
    public void request(String operation, String outcome, Duration latency) {
        requests.add(operation + ":" + outcome);
    }

    @Override
    public void localTierHit() {
        localTierHits.incrementAndGet();
    }

    @Override
    public void localCopyRead() {
        localCopyReads.incrementAndGet();
    }

    long localCopyReads() {
        return localCopyReads.get();
    }

    List<String> requests() {
        return List.copyOf(requests);
    }

    long localTierHits() {
        return localTierHits.get();
    }

    void clear() {
        requests.clear();
        localTierHits.set(0);
        localCopyReads.set(0);
    }
}
