package io.providermirror.server.core;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Unwraps the wrappers that futures put around the exception that really happened. */
final class Futures {

    private Futures() {}

    static Throwable cause(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
