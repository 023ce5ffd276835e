package io.providermirror.upstream;

import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.verify.VerifiedPackage;
import java.net.URI;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A parent network mirror standing in for a host: version lists and version documents through
 * {@link ParentMirrorClient}, trusted for the hashes it publishes.
 */
public final class ParentMirrorOrigin implements Origin {

    private final URI mirrorBase;
    private final ParentMirrorClient parents;

    public ParentMirrorOrigin(URI mirrorBase, ParentMirrorClient parents) {
        this.mirrorBase = mirrorBase;
        this.parents = parents;
    }

    @Override
    public RegistryClient.FetchedVersions versions(ProviderAddress address) {
        return parents.versions(mirrorBase, address);
    }

    @Override
    public ReleaseEvidence release(ProviderAddress address, ListedVersion listed) {
        return parents.fetchRelease(mirrorBase, address, listed.version());
    }

    /** A parent mirror's version documents name versions canonically, so no origin spelling is needed. */
    @Override
    public OriginHttpClient.ArchiveStream openArchive(
            ProviderAddress address,
            ProviderVersion version,
            Supplier<Optional<String>> originSpelling,
            VerifiedPackage pkg,
            Deadline deadline) {
        return StaleUrlRenewal.open(
                address,
                version,
                pkg,
                "the network mirror " + mirrorBase,
                url -> parents.openArchive(mirrorBase, address, version, pkg, url),
                () -> parents.refreshDownloadUrl(mirrorBase, address, version, pkg),
                deadline);
    }

    @Override
    public String describe() {
        return mirrorBase.getAuthority();
    }
}
