package io.providermirror.upstream.git;

/** A git module source could not be fetched: a bad URL or ref, a server failure, or a bound exceeded. */
public final class GitFetchException extends Exception {

    private static final long serialVersionUID = 1L;

    public GitFetchException(String message) {
        super(message);
    }

    public GitFetchException(String message, Throwable cause) {
        super(message, cause);
    }
}
