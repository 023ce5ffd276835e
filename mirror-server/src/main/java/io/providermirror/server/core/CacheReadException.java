package io.providermirror.server.core;

/**
 * The mirror could not open what its own cache holds (an I/O error, a store that refuses): the mirror's trouble, not
 * the origin's, so providers and modules alike answer it as the mirror being unavailable (a 503), naming what could
 * not be read and what an operator must check. Its counterpart for writing is {@link CacheWriteException}.
 */
public final class CacheReadException extends RuntimeException implements Refusal {

    private static final long serialVersionUID = 1L;

    public CacheReadException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public Kind kind() {
        return Kind.UNAVAILABLE;
    }

    @Override
    public String reason() {
        return getMessage();
    }
}
