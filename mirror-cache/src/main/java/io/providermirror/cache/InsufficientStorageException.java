package io.providermirror.cache;

import java.io.IOException;

/**
 * The store refuses to start writing a blob: its file system has less free space than the store must keep,
 * and evicting the blobs nobody reads would not free enough. Nothing committed was touched.
 */
public final class InsufficientStorageException extends IOException {

    private static final long serialVersionUID = 1L;

    public InsufficientStorageException(String message) {
        super(message);
    }
}
