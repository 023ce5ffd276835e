package io.providermirror.cache;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;

/**
 * What a lease object holds: who holds the lease and until when, as two lines of text a person can read in
 * the bucket ({@code holder=...}, {@code expires=<ISO-8601 instant>}).
 */
record LeaseRecord(String holder, Instant expires) {

    LeaseRecord {
        if (holder.isBlank() || holder.contains("\n")) {
            throw new IllegalArgumentException("holder: '" + holder + "' (expected: one non-blank line)");
        }
    }

    byte[] encode() {
        return ("holder=" + holder + "\nexpires=" + expires + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /** The record in {@code content}; empty when it is not one (an unreadable lease counts as expired). */
    static Optional<LeaseRecord> parse(byte[] content) {
        String holder = null;
        Instant expires = null;
        try {
            for (String line : new String(content, StandardCharsets.UTF_8).split("\n", -1)) {
                if (line.startsWith("holder=")) {
                    holder = line.substring("holder=".length());
                } else if (line.startsWith("expires=")) {
                    expires = Instant.parse(line.substring("expires=".length()));
                }
            }
            return holder == null || expires == null ? Optional.empty() : Optional.of(new LeaseRecord(holder, expires));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}
