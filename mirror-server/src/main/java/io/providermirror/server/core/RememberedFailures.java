package io.providermirror.server.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.providermirror.cache.CacheKey;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.verify.VerificationException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Archives that failed verification, remembered for {@code upstream.verificationFailureTtl}: the CLI retries a
 * download that broke off, and without this every retry would fetch the same bad bytes from the origin again and
 * end the same way, with the CLI saying only {@code unexpected EOF}. Within that time a request for the archive is
 * refused at once with the reason (a 502), the origin is not asked, and the refusal is counted
 * ({@code mirror_refusals_total{reason="verification_remembered"}}). Bounded like every cache keyed by what clients
 * ask for; per instance, and empty after a restart.
 */
public final class RememberedFailures {

    /** Remembers nothing ({@code upstream.verificationFailureTtl: 0}). */
    public static final RememberedFailures NONE = new RememberedFailures(Duration.ZERO, Clock.systemUTC(), null);

    private final Cache<CacheKey, Remembered> failures;
    private final Duration ttl;
    private final Clock clock;
    private final MirrorMetrics metrics;

    private record Remembered(VerificationException failure, Instant until) {}

    public RememberedFailures(Duration ttl, Clock clock, MirrorMetrics metrics) {
        this.ttl = ttl;
        this.clock = clock;
        this.metrics = metrics;
        this.failures = Caffeine.newBuilder()
                .maximumSize(ttl.isZero() ? 0 : 10_000)
                .expireAfterWrite(ttl)
                // the mirror's clock, which tests move
                .ticker(() -> {
                    Instant now = clock.instant();
                    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
                })
                .executor(Runnable::run)
                .build();
    }

    /**
     * Refuses {@code key} at once when its last fill from {@code host} failed verification within the time it is
     * remembered for.
     *
     * @throws VerificationException the remembered failure, saying until when it stands
     */
    void refuseIfRemembered(CacheKey key, String host) {
        Remembered remembered = failures.getIfPresent(key);
        if (remembered != null) {
            if (metrics != null) {
                metrics.refused("verification_remembered", host);
            }
            throw new VerificationException(
                    remembered.failure().check(),
                    remembered.failure().getMessage() + " (refused again without asking the origin until "
                            + remembered.until().truncatedTo(ChronoUnit.SECONDS)
                            + ", upstream.verificationFailureTtl)");
        }
    }

    /**
     * Forgets every failure remembered for a key under {@code prefix} (its first segments): after a purge of a whole
     * version or provider, whose refused archives were never committed and so are not listed anywhere else.
     */
    void forgetUnder(java.util.List<String> prefix) {
        failures.asMap().keySet().removeIf(key -> CacheLayout.under(key, prefix));
    }

    /** Remembers how the fill of {@code key} ended, when it ended by failing verification. */
    void record(CacheKey key, Throwable failure) {
        if (failure != null && Futures.cause(failure) instanceof VerificationException refused && !ttl.isZero()) {
            failures.put(key, new Remembered(refused, clock.instant().plus(ttl)));
        }
    }
}
