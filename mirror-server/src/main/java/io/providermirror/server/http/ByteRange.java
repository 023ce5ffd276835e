package io.providermirror.server.http;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A single byte range from a {@code Range} header, resolved against a length. Multiple ranges and other
 * units are answered with the whole representation, as RFC 9110 allows.
 */
record ByteRange(long start, long endInclusive) {

    private static final Pattern SINGLE = Pattern.compile("bytes=\\s*(\\d{0,19})\\s*-\\s*(\\d{0,19})\\s*");

    long length() {
        return endInclusive - start + 1;
    }

    /** The outcome of reading a {@code Range} header. */
    sealed interface Outcome {
        /** Serve everything with 200. */
        record Whole() implements Outcome {}

        /** Serve this range with 206. */
        record Partial(ByteRange range) implements Outcome {}

        /** Answer 416. */
        record Unsatisfiable() implements Outcome {}
    }

    static Outcome parse(String header, long size) {
        if (header == null) {
            return new Outcome.Whole();
        }
        Matcher m = SINGLE.matcher(header.trim());
        if (!m.matches() || m.group(1).isEmpty() && m.group(2).isEmpty()) {
            return new Outcome.Whole();
        }
        Optional<ByteRange> range;
        try {
            if (m.group(1).isEmpty()) {
                long suffix = Long.parseLong(m.group(2));
                range = suffix == 0 || size == 0
                        ? Optional.empty()
                        : Optional.of(new ByteRange(Math.max(0, size - suffix), size - 1));
            } else {
                long start = Long.parseLong(m.group(1));
                long end = m.group(2).isEmpty() ? size - 1 : Math.min(Long.parseLong(m.group(2)), size - 1);
                if (!m.group(2).isEmpty() && Long.parseLong(m.group(2)) < start) {
                    return new Outcome.Whole();
                }
                range = start >= size ? Optional.empty() : Optional.of(new ByteRange(start, end));
            }
        } catch (NumberFormatException e) {
            return new Outcome.Whole();
        }
        return range.<Outcome>map(Outcome.Partial::new).orElseGet(Outcome.Unsatisfiable::new);
    }
}
