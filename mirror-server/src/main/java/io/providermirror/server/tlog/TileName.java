package io.providermirror.server.tlog;

import io.providermirror.cache.CacheKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One resource of a {@code tlog-tiles} log: a hash tile {@code tile/<L>/<N>[.p/<W>]} or an entry bundle
 * {@code tile/entries/<N>[.p/<W>]}. {@code level} is {@link #ENTRIES} for a bundle; {@code width} is 1 to 256, 256
 * for a full tile (which has no {@code .p/<W>} suffix).
 */
public record TileName(int level, long index, int width) {

    /** The level of entry bundles. */
    public static final int ENTRIES = -1;
    /** Hashes (or entries) in a full tile. */
    public static final int FULL = 256;

    private static final Pattern ELEMENT = Pattern.compile("x[0-9]{3}");
    private static final Pattern LAST = Pattern.compile("[0-9]{3}");
    private static final Pattern DECIMAL = Pattern.compile("0|[1-9][0-9]{0,2}");

    public TileName {
        if (level < ENTRIES || level > 63) {
            throw new IllegalArgumentException("level: " + level + " (expected: -1 for entries, or 0 to 63)");
        }
        if (index < 0) {
            throw new IllegalArgumentException("index: " + index + " (expected: >= 0)");
        }
        if (width < 1 || width > FULL) {
            throw new IllegalArgumentException("width: " + width + " (expected: 1 to 256)");
        }
    }

    /** Whether this is a full tile (or bundle). */
    public boolean full() {
        return width == FULL;
    }

    /** The resource's path beneath the log's prefix, e.g. {@code tile/0/x001/234.p/5}. */
    public String path() {
        return String.join("/", segments());
    }

    /** The key this resource is stored at, beneath {@code prefix}. */
    CacheKey key(List<String> prefix) {
        List<String> segments = new ArrayList<>(prefix);
        segments.addAll(segments());
        return new CacheKey(segments);
    }

    private List<String> segments() {
        List<String> segments = new ArrayList<>();
        segments.add("tile");
        segments.add(level == ENTRIES ? "entries" : Integer.toString(level));
        String digits = Long.toString(index);
        int groups = Math.max(1, (digits.length() + 2) / 3);
        String padded = "0".repeat(groups * 3 - digits.length()) + digits;
        for (int group = 0; group < groups; group++) {
            String element = padded.substring(group * 3, group * 3 + 3);
            segments.add(group < groups - 1 ? "x" + element : element);
        }
        if (!full()) {
            int last = segments.size() - 1;
            segments.set(last, segments.get(last) + ".p");
            segments.add(Integer.toString(width));
        }
        return segments;
    }

    /**
     * The resource a request path beneath the log's prefix names ({@code tile/...}), or empty when it names none:
     * a strict reading, so that each resource has exactly one spelling.
     */
    public static Optional<TileName> parse(String path) {
        String[] parts = path.split("/", -1);
        if (parts.length < 3 || !parts[0].equals("tile")) {
            return Optional.empty();
        }
        int level;
        if (parts[1].equals("entries")) {
            level = ENTRIES;
        } else if (DECIMAL.matcher(parts[1]).matches() && Integer.parseInt(parts[1]) <= 63) {
            level = Integer.parseInt(parts[1]);
        } else {
            return Optional.empty();
        }
        int end = parts.length;
        int width = FULL;
        if (parts[end - 2].endsWith(".p")) {
            if (!DECIMAL.matcher(parts[end - 1]).matches()) {
                return Optional.empty();
            }
            width = Integer.parseInt(parts[end - 1]);
            if (width < 1 || width > 255) {
                return Optional.empty();
            }
            parts[end - 2] = parts[end - 2].substring(0, parts[end - 2].length() - 2);
            end--;
        }
        if (end - 2 > 7) {
            return Optional.empty(); // more than 21 digits: beyond any 64-bit index
        }
        StringBuilder digits = new StringBuilder();
        for (int i = 2; i < end; i++) {
            Pattern expected = i < end - 1 ? ELEMENT : LAST;
            if (!expected.matcher(parts[i]).matches()) {
                return Optional.empty();
            }
            digits.append(parts[i], i < end - 1 ? 1 : 0, parts[i].length());
        }
        long index;
        try {
            index = Long.parseLong(digits.toString());
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        TileName name = new TileName(level, index, width);
        // Leading groups of zeros ("x000/001") would be a second spelling of the same tile.
        return name.path().equals(path) ? Optional.of(name) : Optional.empty();
    }
}
