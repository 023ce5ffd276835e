package io.providermirror.server.providers;

import io.providermirror.server.tlog.Decision;
import io.providermirror.upstream.DownloadDocument;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.ReleaseEvidence;
import io.providermirror.upstream.verify.OpenPgpSignatures;
import io.providermirror.upstream.verify.PackageHashes;
import io.providermirror.upstream.verify.VerifiedPackage;
import io.providermirror.upstream.verify.VerifiedRelease;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;

/**
 * The transparency log's entry for a release just verified from its origin: the whole fingerprint of each key that
 * signed its SHA256SUMS (found among the keys its download documents list), and the sha256 of each SHA256SUMS.
 */
final class ReleaseDecisions {

    private ReleaseDecisions() {}

    static Decision verified(VerifiedRelease release, ReleaseEvidence evidence) {
        List<String> armoredKeys = new ArrayList<>();
        for (ReleaseEvidence.Download download : evidence.downloads()) {
            try {
                armoredKeys.addAll(DownloadDocument.parse(
                                io.providermirror.model.Platform.parse(download.platform()),
                                download.url(),
                                download.document(),
                                "download document")
                        .signingKeys());
            } catch (OriginException | IllegalArgumentException e) {
                // verified already: a document read once more cannot fail; without its keys, the key ID is logged
            }
        }
        TreeSet<String> keys = new TreeSet<>();
        TreeSet<String> platforms = new TreeSet<>();
        for (VerifiedPackage pkg : release.packages().values()) {
            keys.add(OpenPgpSignatures.fingerprint(armoredKeys, pkg.signingKeyId())
                    .orElse(pkg.signingKeyId()));
            platforms.add(pkg.platform().toString());
        }
        TreeSet<String> sums = new TreeSet<>();
        for (ReleaseEvidence.Checksums checksums : evidence.checksums()) {
            sums.add(HexFormat.of().formatHex(PackageHashes.sha256().digest(checksums.sums())));
        }
        return Decision.releaseVerified(
                release.address().toString(),
                release.version().canonical(),
                List.copyOf(keys),
                List.copyOf(sums),
                List.copyOf(platforms));
    }
}
