package io.providermirror.cache;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A relative location in the cache, as validated path segments. Every segment is checked here, so no key
 * can name a file outside the cache directory whatever the request that led to it.
 */
public record CacheKey(List<String> segments) {

    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9_+:-][A-Za-z0-9._+:-]{0,254}");

    public CacheKey {
        segments = List.copyOf(segments);
        if (segments.isEmpty()) {
            throw new IllegalArgumentException("cache key: empty (expected: at least one segment)");
        }
        for (String segment : segments) {
            if (!SEGMENT.matcher(segment).matches() || segment.contains("..")) {
                throw new IllegalArgumentException("cache key segment: '" + segment
                        + "' (expected: letters, digits and ._+:- not starting with '.', no '..')");
            }
        }
    }

    /** A key from segments. */
    public static CacheKey of(String... segments) {
        return new CacheKey(List.of(segments));
    }

    /** This key as a path beneath {@code root}; the segments' validation guarantees it stays beneath it. */
    public Path resolveUnder(Path root) {
        Path path = root;
        for (String segment : segments) {
            path = path.resolve(segment);
        }
        Path normalized = path.normalize();
        if (!normalized.startsWith(root.normalize())) {
            throw new IllegalArgumentException("cache key " + this + " escapes " + root);
        }
        return normalized;
    }

    @Override
    public String toString() {
        return String.join("/", segments);
    }
}
