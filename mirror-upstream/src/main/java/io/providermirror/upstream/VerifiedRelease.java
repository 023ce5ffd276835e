package io.providermirror.upstream;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** Every platform package of one provider version, verified, with the evidence they were verified from. */
public record VerifiedRelease(ProviderAddress address, ProviderVersion version,
                              Map<Platform, VerifiedPackage> packages, ReleaseEvidence evidence) {

    public VerifiedRelease {
        packages = Collections.unmodifiableMap(new TreeMap<>(packages));
    }

    /** The package for {@code platform}, if the release has one. */
    public Optional<VerifiedPackage> find(Platform platform) {
        return Optional.ofNullable(packages.get(platform));
    }
}
