package io.providermirror.s3;

import java.time.Duration;

/**
 * What the S3 stores report for metrics: every request to the bucket by operation and outcome with its latency,
 * reads answered by the local disk tier, and documents read from their local copies while the bucket is down. The server binds it to its meter registry; this module has none.
 */
public interface S3StoreListener {

    /** A listener that records nothing. */
    S3StoreListener NONE = new S3StoreListener() {
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
