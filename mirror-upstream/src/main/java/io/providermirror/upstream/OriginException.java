package io.providermirror.upstream;

import io.providermirror.model.PlainMessages;

/**
 * An origin registry could not give what was asked: the message names the origin and what failed, and is
 * written for the person who reads it in a client's error output. URLs in the message lose their query strings
 * ({@link io.providermirror.model.Urls#redactedIn}), which for pre-signed download URLs are credentials, and the JDK's internals
 * ({@link PlainMessages}).
 */
public class OriginException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** What kind of failure this is; the HTTP layer maps it to a status code. */
    public enum Reason {
        /** The origin says the thing does not exist. */
        NOT_FOUND,
        /** The origin could not be reached or answered with an error. */
        UNAVAILABLE,
        /** The origin did not answer in time. */
        TIMEOUT,
        /** The origin answered with something that is not what the protocol says. */
        BAD_RESPONSE,
        /** What the origin served failed verification. */
        VERIFICATION_FAILED,
        /** The mirror's policy does not allow contacting this origin. */
        FORBIDDEN
    }

    private final Reason reason;
    private final int status;

    public OriginException(Reason reason, String message) {
        this(reason, message, 0);
    }

    /** An error for an HTTP answer with {@code status}. */
    public OriginException(Reason reason, String message, int status) {
        super(PlainMessages.of(message));
        this.reason = reason;
        this.status = status;
    }

    public OriginException(Reason reason, String message, Throwable cause) {
        super(PlainMessages.of(message), cause);
        this.reason = reason;
        this.status = cause instanceof OriginException origin ? origin.status : 0;
    }

    public Reason reason() {
        return reason;
    }

    /** The HTTP status the origin answered with, or 0 when the failure was not an HTTP answer. */
    public int status() {
        return status;
    }
}
