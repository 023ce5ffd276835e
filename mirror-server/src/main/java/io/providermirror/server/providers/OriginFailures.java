package io.providermirror.server.providers;

import io.providermirror.server.core.Futures;
import io.providermirror.upstream.LaneFullException;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.verify.VerificationException;
import org.slf4j.Logger;

/**
 * One log line per failed fetch (not per client waiting for it): what was wanted and why it failed. A thing
 * the origin does not have is routine (a typo in a configuration) and logged at INFO; everything else at WARN.
 * Verification failures are logged where they are detected, with the check that failed.
 */
final class OriginFailures {

    private OriginFailures() {}

    static void log(Logger log, String what, Throwable failure) {
        if (failure == null) {
            return;
        }
        Throwable cause = Futures.cause(failure);
        if (cause instanceof VerificationException || cause instanceof LaneFullException) {
            // Logged where judged; a full lane's refusals are counted (mirror_refusals_total), not logged each.
            return;
        }
        if (cause instanceof OriginException origin) {
            if (origin.reason() == OriginException.Reason.NOT_FOUND) {
                log.info("{}: {}", what, origin.getMessage());
            } else {
                log.warn("cannot get {}: {}", what, origin.getMessage());
            }
            return;
        }
        log.warn("cannot get {}", what, cause);
    }
}
