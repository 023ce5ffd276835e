package io.providermirror.upstream.transfer;

import java.io.IOException;

/**
 * A kept connection failed before any answer to the request sent on it: the origin most likely closed it while it was
 * idle, so the request (a GET, sent again safely) goes out once more on another connection.
 */
final class StaleConnection extends IOException {

    private static final long serialVersionUID = 1L;

    StaleConnection(IOException cause) {
        super(cause.getMessage(), cause);
    }

    /** What went wrong on the connection. */
    IOException failure() {
        return (IOException) getCause();
    }
}
