package io.providermirror.upstream;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderVersion;
import java.util.List;

/**
 * One version from an origin's version list: the canonical version, the origin's own spelling of it (used
 * in requests back to the origin), and the platforms the origin offers for it.
 */
public record ListedVersion(ProviderVersion version, String originSpelling, List<Platform> platforms) {
    public ListedVersion {
        platforms = List.copyOf(platforms);
    }
}
