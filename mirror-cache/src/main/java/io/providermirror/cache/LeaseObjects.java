package io.providermirror.cache;

import java.io.IOException;
import java.util.Optional;

/**
 * Small objects written with the conditions of a shared object store, which is all that fill leases need:
 * create only if absent ({@code If-None-Match: *}), replace only if unchanged ({@code If-Match} on an ETag).
 * A store that ignores the conditions overwrites instead; {@link ConditionalFillLeases#probe} finds that out.
 */
public interface LeaseObjects {

    /** An object's content and the ETag it had when read. */
    record Versioned(byte[] content, String etag) {}

    /**
     * Creates {@code name} unless it exists.
     *
     * @return its ETag, or empty when it already existed (the store answered 412)
     */
    Optional<String> createIfAbsent(String name, byte[] content) throws IOException;

    /** The object {@code name}, if it exists. */
    Optional<Versioned> read(String name) throws IOException;

    /**
     * Replaces {@code name} if its ETag is still {@code etag}.
     *
     * @return its new ETag, or empty when it changed or vanished since (412 or 404)
     */
    Optional<String> replaceIfMatch(String name, byte[] content, String etag) throws IOException;

    /** Removes {@code name}, if it exists. */
    void delete(String name) throws IOException;
}
