package io.providermirror.upstream;

import java.net.URI;
import java.time.Duration;

/**
 * How {@link OriginHttpClient} reports one logical request to its {@link OriginObserver}: by its status when it got
 * one, else by the exception that ended it; never a request that was not sent (offline, a refused destination).
 */
final class RequestReports {

    private RequestReports() {}

    /** Reports the request for {@code uri} that started at {@code startNanos} ({@link System#nanoTime()}). */
    static void report(
            OriginObserver observer,
            boolean offline,
            String origin,
            URI uri,
            OriginObserver.Operation operation,
            long startNanos,
            int status,
            OriginException failure) {
        if (failure != null
                && (failure.reason() == OriginException.Reason.FORBIDDEN
                        || offline
                        || failure instanceof OriginDestinations.Refused)) {
            return;
        }
        OriginObserver.Outcome outcome;
        if (failure != null) {
            outcome = failure.reason() == OriginException.Reason.TIMEOUT
                    ? OriginObserver.Outcome.TIMEOUT
                    : failure.reason() == OriginException.Reason.NOT_FOUND
                            ? OriginObserver.Outcome.NOT_FOUND
                            : OriginObserver.Outcome.ERROR;
        } else if (status / 100 == 2) {
            outcome = OriginObserver.Outcome.SUCCESS;
        } else {
            outcome = status == 404 || status == 410 ? OriginObserver.Outcome.NOT_FOUND : OriginObserver.Outcome.ERROR;
        }
        String detail = failure != null
                ? failure.getMessage()
                : outcome == OriginObserver.Outcome.SUCCESS ? null : uri + " answered HTTP " + status;
        observer.requestCompleted(
                origin,
                uri.getAuthority(),
                operation,
                outcome,
                Duration.ofNanos(System.nanoTime() - startNanos),
                detail);
    }
}
