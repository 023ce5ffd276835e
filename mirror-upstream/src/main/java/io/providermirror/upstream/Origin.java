package io.providermirror.upstream;

import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.verify.VerifiedPackage;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Where one origin host's providers come from: its provider registry (found by service discovery) or a parent
 * network mirror standing in for it. The pull-through core asks an {@code Origin} and never which kind it is;
 * each implementation owns its discovery, its base URL and the renewal of expired download URLs.
 */
public interface Origin {

    /** The status codes with which an expired or withdrawn download URL answers. */
    Set<Integer> STALE_URL_STATUSES = Set.of(401, 403, 404, 410);

    /** The provider's version list, with the bytes to persist (always the registry's form). */
    RegistryClient.FetchedVersions versions(ProviderAddress address);

    /** Everything needed to verify {@code listed}, as the origin said it; not verified yet. */
    ReleaseEvidence release(ProviderAddress address, ListedVersion listed);

    /**
     * Opens the archive of a verified package; when its download URL stopped working (expired signed URLs answer
     * 401, 403, 404 or 410), asks for a fresh one, which must name the same verified file and hash.
     *
     * @param originSpelling the origin's spelling of {@code version} when the mirror knows it, looked up only when
     *                       a renewal needs it; asked of the origin when it is empty
     * @param deadline       checked before each request of a renewal
     */
    OriginHttpClient.ArchiveStream openArchive(
            ProviderAddress address,
            ProviderVersion version,
            Supplier<Optional<String>> originSpelling,
            VerifiedPackage pkg,
            Deadline deadline);

    /** The authority that answers for the host (its discovery document's, or its parent mirror's), for messages. */
    String describe();

    /** Bounds a download, renewal included: fails with an {@link OriginException} once its time is up. */
    @FunctionalInterface
    interface Deadline {
        void check();
    }
}
