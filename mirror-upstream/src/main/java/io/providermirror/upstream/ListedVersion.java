package io.providermirror.upstream;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderVersion;
import java.util.List;

/**
 * One version from an origin's version list: the canonical version, the origin's own spelling of it (used
 * in requests back to the origin), the platforms the origin offers for it, and the plugin protocol versions it
 * says the version speaks ({@code protocols}, as the origin wrote them; empty when it named none).
 */
public record ListedVersion(
        ProviderVersion version, String originSpelling, List<Platform> platforms, List<String> protocols) {

    public ListedVersion {
        platforms = List.copyOf(platforms);
        protocols = List.copyOf(protocols);
    }

    /** A listed version whose protocols are not known. */
    public ListedVersion(ProviderVersion version, String originSpelling, List<Platform> platforms) {
        this(version, originSpelling, platforms, List.of());
    }
}
