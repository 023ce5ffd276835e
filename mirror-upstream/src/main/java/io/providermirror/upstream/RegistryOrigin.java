package io.providermirror.upstream;

import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.net.URI;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A host's own provider registry: its {@code providers.v1} base URL from {@link ProviderBases}, and the provider
 * registry protocol through {@link RegistryClient}.
 */
public final class RegistryOrigin implements Origin {

    private final String hostname;
    private final RegistryClient registry;
    private final ProviderBases bases;

    public RegistryOrigin(String hostname, RegistryClient registry, ProviderBases bases) {
        this.hostname = hostname;
        this.registry = registry;
        this.bases = bases;
    }

    @Override
    public RegistryClient.FetchedVersions versions(ProviderAddress address) {
        return registry.versions(bases.providersBase(hostname), address);
    }

    @Override
    public ReleaseEvidence release(ProviderAddress address, ListedVersion listed) {
        return registry.fetchRelease(bases.providersBase(hostname), address, listed);
    }

    @Override
    public OriginHttpClient.ArchiveStream openArchive(
            ProviderAddress address,
            ProviderVersion version,
            Supplier<Optional<String>> originSpelling,
            VerifiedPackage pkg,
            Deadline deadline) {
        URI base = bases.providersBase(hostname);
        return StaleUrlRenewal.open(
                address,
                version,
                pkg,
                "its origin",
                url -> registry.openArchive(base, address, version, pkg, url),
                () -> {
                    // The download document is asked for under the version's name as the origin lists it.
                    String spelling = originSpelling
                            .get()
                            .orElseGet(() -> registry.versions(base, address)
                                    .list()
                                    .find(version)
                                    .map(ListedVersion::originSpelling)
                                    .orElse(version.canonical()));
                    deadline.check();
                    return registry.refreshDownloadUrl(base, address, version, spelling, pkg);
                },
                deadline);
    }

    @Override
    public String describe() {
        return bases.discoveryUrl(hostname).getAuthority();
    }
}
