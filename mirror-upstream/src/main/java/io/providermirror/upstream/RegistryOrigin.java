package io.providermirror.upstream;

import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.verify.VerifiedPackage;
import java.net.URI;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A host's own provider registry: its {@code providers.v1} base URL from {@link ServiceBases}, and the provider
 * registry protocol through {@link RegistryClient}.
 */
public final class RegistryOrigin implements Origin {

    private final String hostname;
    private final RegistryClient registry;
    private final ServiceBases bases;

    public RegistryOrigin(String hostname, RegistryClient registry, ServiceBases bases) {
        this.hostname = hostname;
        this.registry = registry;
        this.bases = bases;
    }

    @Override
    public RegistryClient.FetchedVersions versions(ProviderAddress address) {
        return registry.versions(providersBase(), address);
    }

    @Override
    public ReleaseEvidence release(ProviderAddress address, ListedVersion listed) {
        return registry.fetchRelease(providersBase(), address, listed);
    }

    @Override
    public OriginHttpClient.ArchiveStream openArchive(
            ProviderAddress address,
            ProviderVersion version,
            Supplier<Optional<String>> originSpelling,
            VerifiedPackage pkg,
            Deadline deadline) {
        URI base = providersBase();
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

    private URI providersBase() {
        return bases.base(hostname, RegistryService.PROVIDERS);
    }

    @Override
    public String describe() {
        return bases.discoveryUrl(hostname).getAuthority();
    }
}
