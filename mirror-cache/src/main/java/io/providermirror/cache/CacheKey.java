package io.providermirror.cache;

import java.nio.file.Path;
import java.util.List;

/**
 * A relative location in the cache, as validated path segments. Every segment is checked here, so no key
 * can name a file outside the cache directory whatever the request that led to it.
 */
public record CacheKey(List<String> segments) {

    /** The longest segment: a file name on every file system the cache runs on. */
    static final int MAX_SEGMENT_LENGTH = 255;

    public CacheKey {
        segments = List.copyOf(segments);
        if (segments.isEmpty()) {
            throw new IllegalArgumentException("cache key: empty (expected: at least one segment)");
        }
        for (String segment : segments) {
            if (!isValidSegment(segment)) {
                throw new IllegalArgumentException("cache key segment: '" + segment
                        + "' (expected: letters, digits and ._+:- not starting with '.', no '..')");
            }
        }
    }

    /**
     * Letters, digits and {@code ._+:-}, 1 to {@link #MAX_SEGMENT_LENGTH} of them, not starting with {@code .}, no
     * {@code ..}: so neither {@code .} nor {@code ..} nor a separator. Checked a character at a time, as every archive
     * request makes a key.
     */
    static boolean isValidSegment(String segment) {
        int length = segment.length();
        if (length == 0 || length > MAX_SEGMENT_LENGTH || segment.charAt(0) == '.') {
            return false;
        }
        char previous = 0;
        for (int i = 0; i < length; i++) {
            char c = segment.charAt(i);
            boolean allowed = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == '+'
                    || c == ':'
                    || c == '-';
            if (!allowed || (c == '.' && previous == '.')) {
                return false;
            }
            previous = c;
        }
        return true;
    }

    /** A key from segments. */
    public static CacheKey of(String... segments) {
        return new CacheKey(List.of(segments));
    }

    /** This key as a path beneath {@code root}; the segments' validation guarantees it stays beneath it. */
    public Path resolveUnder(Path root) {
        // One resolve of the joined segments: none is empty, "." or "..", and none holds a separator.
        Path normalized = root.resolve(toString()).normalize();
        Path base = root.normalize();
        if (!normalized.startsWith(base) || normalized.getNameCount() != base.getNameCount() + segments.size()) {
            throw new IllegalArgumentException("cache key " + this + " escapes " + root);
        }
        return normalized;
    }

    @Override
    public String toString() {
        return String.join("/", segments);
    }
}
