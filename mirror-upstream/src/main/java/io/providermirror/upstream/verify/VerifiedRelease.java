package io.providermirror.upstream.verify;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Every platform package of one provider version, verified. The evidence it was verified from is not kept
 * here (it is large: every platform's download document with the origin's keys); whoever needs it again
 * persists it.
 */
public record VerifiedRelease(
        ProviderAddress address, ProviderVersion version, Map<Platform, VerifiedPackage> packages) {

    public VerifiedRelease {
        packages = Collections.unmodifiableMap(new TreeMap<>(packages));
    }

    /** The package for {@code platform}, if the release has one. */
    public Optional<VerifiedPackage> find(Platform platform) {
        return Optional.ofNullable(packages.get(platform));
    }
}
