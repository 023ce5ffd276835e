package io.providermirror.cache;

import java.io.IOException;

/**
 * A store behind the cache (an S3 bucket) did not answer a request (unreachable, refused, failed): the message names
 * the store and the object. The HTTP layer answers it without knowing which kind of store it is.
 */
public final class StoreUnavailableException extends IOException {

    private static final long serialVersionUID = 1L;

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
