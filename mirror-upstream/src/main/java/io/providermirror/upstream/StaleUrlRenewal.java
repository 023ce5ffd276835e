package io.providermirror.upstream;

import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.verify.VerifiedPackage;
import java.net.URI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opening a verified package's archive the way every origin does: at the URL the verified release names, and, when
 * that URL stopped working (expired signed URLs answer 401, 403, 404 or 410), once more at a fresh URL its origin
 * hands out for the same verified file and hash.
 */
final class StaleUrlRenewal {

    private static final Logger LOG = LoggerFactory.getLogger(StaleUrlRenewal.class);

    /** Opens the archive at a download URL. */
    @FunctionalInterface
    interface Opening {
        OriginHttpClient.ArchiveStream open(URI url);
    }

    /** Asks the origin for a fresh download URL of the same verified package; checks the deadline itself. */
    @FunctionalInterface
    interface Renewal {
        URI freshUrl();
    }

    private StaleUrlRenewal() {}

    /**
     * Opens {@code pkg}'s archive, renewing its download URL once when it has gone stale.
     *
     * @param askedOf who is asked for the fresh URL, for the log line ("its origin", "the network mirror ...")
     */
    static OriginHttpClient.ArchiveStream open(
            ProviderAddress address,
            ProviderVersion version,
            VerifiedPackage pkg,
            String askedOf,
            Opening opening,
            Renewal renewal,
            Origin.Deadline deadline) {
        try {
            return opening.open(pkg.downloadUrl());
        } catch (OriginException e) {
            if (!Origin.STALE_URL_STATUSES.contains(e.status())) {
                throw e;
            }
            LOG.info(
                    "the download URL of {} {} {} answered HTTP {}; asking {} for a fresh one",
                    address,
                    version,
                    pkg.platform(),
                    e.status(),
                    askedOf);
            URI fresh = renewal.freshUrl();
            deadline.check();
            return opening.open(fresh);
        }
    }
}
