package io.providermirror.upstream.verify;

/**
 * Bounds on what one packed tree (or one clone) may hold: entries (files, directories and symlinks) and the
 * total bytes of file contents.
 */
public record ArchiveLimits(int maxEntries, long maxBytes) {

    public ArchiveLimits {
        if (maxEntries < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("archive limits must be positive: " + maxEntries + ", " + maxBytes);
        }
    }
}
