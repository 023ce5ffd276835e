package io.providermirror.s3;

import java.io.IOException;

/** The bucket did not answer a request (unreachable, refused, failed): the message names the bucket and the object. */
public final class StoreUnavailableException extends IOException {

    private static final long serialVersionUID = 1L;

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
