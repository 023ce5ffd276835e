package io.providermirror.server.core;

import io.providermirror.cache.StoreUnavailableException;
import io.providermirror.upstream.LaneFullException;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.verify.VerificationException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Why the mirror could not answer, in the words a client gets and as one of a few kinds, with no storage backend,
 * origin or face in sight: the engine's failures (and a face's, which implement this) are read as one so a front
 * end maps the kind to its status and knows nothing else of them ({@link #of}). A failure that is none of these is
 * the mirror's own fault.
 */
public interface Refusal {

    /** What kind of failure it is, whatever the protocol that answers it. */
    enum Kind {
        /** Nothing to answer: the origin has none, or the mirror's policy refuses it. */
        NOT_FOUND,
        /** The origin refused the mirror. */
        FORBIDDEN,
        /** It exists, but cannot be offered as asked (a face cannot offer what it cannot vouch for). */
        CONFLICT,
        /** The origin did not answer in time. */
        ORIGIN_TIMEOUT,
        /** The origin answered badly, or what it sent failed verification. */
        ORIGIN_FAILED,
        /** The mirror is busy: try again after {@link #retryAfter()}. */
        BUSY,
        /** The mirror's disk is too full for more. */
        DISK_FULL,
        /** The cache cannot be read or written now. */
        UNAVAILABLE
    }

    /** The kind of this failure. */
    Kind kind();

    /** The words for the client: what failed, for what, and what to do. */
    String reason();

    /** When a client may try again; zero when that is not the point. */
    default Duration retryAfter() {
        return Duration.ZERO;
    }

    /** A refusal as a value, for failures that cannot implement this themselves. */
    record Described(Kind kind, String reason, Duration retryAfter) implements Refusal {}

    /**
     * {@code failure} (looked for inside the wrappers futures put around it) as a refusal, or empty when it is none:
     * the mirror's own fault. An origin's failure, a store that did not answer (anywhere among the causes) and a
     * cache that could not be written are read here; other failures implement this interface.
     */
    static Optional<Refusal> of(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof OriginException origin) {
            Kind kind = switch (origin.reason()) {
                case NOT_FOUND -> Kind.NOT_FOUND;
                case FORBIDDEN -> Kind.FORBIDDEN;
                case TIMEOUT -> Kind.ORIGIN_TIMEOUT;
                case UNAVAILABLE, BAD_RESPONSE, VERIFICATION_FAILED -> Kind.ORIGIN_FAILED;
            };
            return Optional.of(new Described(kind, origin.getMessage(), Duration.ZERO));
        }
        if (cause instanceof VerificationException refused) {
            // What an origin served failed a check: answered as the origin's failure (a VERIFICATION_FAILED).
            return Optional.of(new Described(Kind.ORIGIN_FAILED, refused.getMessage(), Duration.ZERO));
        }
        if (cause instanceof Refusal refusal) {
            return Optional.of(refusal);
        }
        if (cause instanceof LaneFullException full) {
            // Its origin's lane has upstream.maxWaitingPerHost requests waiting: busy with that origin.
            return Optional.of(new Described(
                    Kind.BUSY,
                    "the mirror is busy with this origin: " + full.getMessage() + " (upstream.maxWaitingPerHost)",
                    FillPermits.RETRY_AFTER));
        }
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof StoreUnavailableException) {
                // The bucket that is the cache of record did not answer: a cold request cannot be served now.
                return Optional.of(new Described(Kind.UNAVAILABLE, t.getMessage(), Duration.ZERO));
            }
            if (t.getCause() == t) {
                break;
            }
        }
        if (cause instanceof CacheWriteException cacheTrouble) {
            return Optional.of(new Described(Kind.UNAVAILABLE, cacheTrouble.getMessage(), Duration.ZERO));
        }
        return Optional.empty();
    }
}
