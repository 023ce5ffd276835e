package io.providermirror.upstream;

import java.time.Duration;

/**
 * Told about every logical request to an origin (retries included, as one), so that the server can count
 * and time them and keep each origin's health without this module knowing how. Requests that were never
 * sent (offline mode, an internal address refused) are not reported. Called on the requesting thread; must
 * be quick and must not throw.
 */
public interface OriginObserver {

    /** What the request was for. */
    enum Operation {
        DISCOVERY,
        VERSIONS,
        DOWNLOAD,
        CHECKSUMS,
        SIGNATURE,
        ARCHIVE,
        /** A registry module's version list. */
        MODULE_VERSIONS,
        /** A registry module version's download request, which answers with the module's source address. */
        MODULE_DOWNLOAD,
        /** A document of the full module registry API: a list, a search, a module's latest version or details. */
        MODULE_API
    }

    /** How it ended. */
    enum Outcome {
        /** A 2xx answer (for archives: the response started). */
        SUCCESS,
        /** 404 or 410. */
        NOT_FOUND,
        /** No answer within the deadline. */
        TIMEOUT,
        /** Anything else: connection or TLS failure, an error status, a malformed or oversized answer. */
        ERROR
    }

    /**
     * @param origin  the provider hostname the request was made for (e.g. {@code registry.terraform.io}), which
     *                is what people know an origin by; {@code host} may be its download host or a configured URL
     * @param host    the authority contacted ({@code host} or {@code host:port})
     * @param failure what went wrong, for outcomes other than {@code SUCCESS}; else null
     */
    void requestCompleted(
            String origin, String host, Operation operation, Outcome outcome, Duration latency, String failure);

    /** An observer that ignores everything. */
    OriginObserver NONE = (origin, host, operation, outcome, latency, failure) -> {};
}
