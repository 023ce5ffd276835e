package io.providermirror.server.core;

/**
 * The mirror could not write to its own cache (a full disk, an I/O error): the mirror's trouble, not the
 * origin's, so it is answered as the mirror being unavailable and the message says what an operator must do.
 */
public final class CacheWriteException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public CacheWriteException(String message, Throwable cause) {
        super(message, cause);
    }
}
