package io.providermirror.upstream;

import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.net.URI;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A parent network mirror standing in for a host: version lists and version documents through
 * {@link ParentMirrorClient}, trusted for the hashes it publishes.
 */
public final class ParentMirrorOrigin implements Origin {

    private static final Logger LOG = LoggerFactory.getLogger(ParentMirrorOrigin.class);

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
        try {
            return parents.openArchive(mirrorBase, address, version, pkg, pkg.downloadUrl());
        } catch (OriginException e) {
            if (!STALE_URL_STATUSES.contains(e.status())) {
                throw e;
            }
            LOG.info(
                    "the download URL of {} {} {} answered HTTP {}; asking the network mirror {} for a fresh one",
                    address,
                    version,
                    pkg.platform(),
                    e.status(),
                    mirrorBase);
            URI fresh = parents.refreshDownloadUrl(mirrorBase, address, version, pkg);
            deadline.check();
            return parents.openArchive(mirrorBase, address, version, pkg, fresh);
        }
    }

    @Override
    public String describe() {
        return mirrorBase.getAuthority();
    }
}
