package io.providermirror.server.tlog;

/**
 * Where the mirror records its decisions. {@link #record} returns at once: the entry is appended to the log in the
 * background, so no request waits for the log's writes.
 */
public interface DecisionLog {

    /** A log that records nothing: for commands and tests that work without one. */
    DecisionLog NONE = decision -> {};

    /** Records {@code decision}, made now. */
    void record(Decision decision);
}
