package io.providermirror.upstream;

import java.net.URI;
import java.util.Optional;

/**
 * The answer to one GET of one URL, its body not read yet: what {@link RedirectFollower} and {@link RetryingSender}
 * look at, whichever client got it.
 */
interface Hop {

    /** The URL this answers. */
    URI uri();

    int status();

    /** The first value of a header, by its case-insensitive name. */
    Optional<String> header(String name);

    /** Drops the body of an answer that is not handed to the caller (a redirect, a retried failure). */
    void discard();
}
