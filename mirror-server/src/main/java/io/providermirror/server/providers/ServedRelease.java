package io.providermirror.server.providers;

import io.providermirror.model.Platform;
import io.providermirror.upstream.verify.VerifiedRelease;
import java.util.Collections;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A verified release as the mirror serves it: the platforms its version document lists (those the policy lets
 * in) and the {@code h1:} hashes computed so far for their archives. What a caller in-process reads instead of
 * parsing the rendered document.
 */
public record ServedRelease(VerifiedRelease release, SortedSet<Platform> platforms, Map<Platform, String> h1) {

    public ServedRelease {
        platforms = Collections.unmodifiableSortedSet(new TreeSet<>(platforms));
        h1 = Map.copyOf(h1);
    }
}
