package io.providermirror.server.core;

import java.time.Duration;

/**
 * The mirror refuses work to protect its own resources: too many archive downloads at once (answered 503
 * with {@code Retry-After}), or too little free disk for another archive (answered 507). The message names
 * the provider, the origin and the limit an operator can raise.
 */
public final class CapacityException extends RuntimeException implements Refusal {

    private static final long serialVersionUID = 1L;

    /** Which resource ran out. */
    public enum Limit {
        /** {@code upstream.maxConcurrentFills} or {@code upstream.maxConcurrentFillsPerHost}: try again soon. */
        FILLS,
        /** {@code cache.minFreeSpace}: an operator must free disk or lower the watermark. */
        DISK
    }

    private final Limit limit;
    private final Duration retryAfter;

    public CapacityException(Limit limit, String message, Duration retryAfter) {
        super(message);
        this.limit = limit;
        this.retryAfter = retryAfter;
    }

    public Limit limit() {
        return limit;
    }

    @Override
    public Kind kind() {
        return limit == Limit.DISK ? Kind.DISK_FULL : Kind.BUSY;
    }

    @Override
    public String reason() {
        return getMessage();
    }

    /** When a client may try again. */
    @Override
    public Duration retryAfter() {
        return retryAfter;
    }
}
