package io.providermirror.cache;

import java.time.Duration;

/**
 * What a store behind the cache (an S3 bucket) reports for metrics: every request to it by operation and outcome with
 * its latency, reads answered by the local disk tier, and documents read from their local copies while it is down.
 * The server binds it to its meter registry; the stores have none.
 */
public interface RemoteStoreListener {

    /** A listener that records nothing. */
    RemoteStoreListener NONE = new RemoteStoreListener() {
        @Override
        public void request(String operation, String outcome, Duration latency) {}

        @Override
        public void localTierHit() {}

        @Override
        public void localCopyRead() {}
    };

    /**
     * One request to the bucket.
     *
     * @param operation {@code get}, {@code head}, {@code put}, {@code copy}, {@code delete}, {@code list} or
     *     {@code multipart}
     * @param outcome {@code ok}, {@code missing} (no such object) or {@code error}
     */
    void request(String operation, String outcome, Duration latency);

    /** An archive read answered from the local disk tier, without a request to the bucket. */
    void localTierHit();

    /** A metadata document read from this instance's local copy because the bucket did not answer. */
    void localCopyRead();
}
