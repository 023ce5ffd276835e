package io.providermirror.upstream;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.verify.ReleaseJudgement;
import io.providermirror.upstream.verify.SignaturePolicy;
import io.providermirror.upstream.verify.VerificationException;
import io.providermirror.upstream.verify.VerifiedPackage;
import io.providermirror.upstream.verify.VerifiedRelease;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a release's evidence as the origin protocols say (each platform's download document, a parent mirror's
 * version document) and has {@link ReleaseJudgement} judge what it says; the judgement itself knows no protocol.
 */
public final class ReleaseVerifier {

    private ReleaseVerifier() {}

    /**
     * When the origin signed SHA256SUMS of {@code evidence} ({@link ReleaseJudgement#signedAt}); empty for evidence
     * without a signature (a parent mirror's, or unsigned). Read only of evidence that {@link #verify} accepted.
     */
    public static Optional<Instant> signedAt(ReleaseEvidence evidence) {
        if (evidence.checksums() == null) {
            return Optional.empty();
        }
        return ReleaseJudgement.signedAt(evidence.checksums().stream()
                .map(ReleaseEvidence.Checksums::signature)
                .toList());
    }

    /**
     * Verifies {@code evidence} under {@code policy}, judging the dates of signatures at {@code at} (the CLI judges
     * them at the time it installs).
     *
     * @throws VerificationException when any package fails a check; a release is trusted whole or not at all
     * @throws OriginException       when the evidence is malformed or holds no package
     */
    public static VerifiedRelease verify(
            ProviderAddress address,
            ProviderVersion version,
            ReleaseEvidence evidence,
            SignaturePolicy policy,
            Instant at) {
        if (evidence.parentMirror() != null) {
            ReleaseJudgement.parentMirrorVouches(
                    address, version, evidence.parentMirror().url(), policy);
            return withPackages(ParentMirrorClient.release(address, version, evidence.parentMirror()));
        }
        ReleaseJudgement.originRegistryVouches(address, version, policy);
        Map<Platform, VerifiedPackage> packages = new HashMap<>();
        for (ReleaseEvidence.Download download : evidence.downloads()) {
            Platform platform = Platform.parse(download.platform());
            String what = "the download document of " + address + " " + version + " " + platform;
            if (packages.containsKey(platform)) {
                throw new OriginException(OriginException.Reason.BAD_RESPONSE, what + " is in the evidence twice");
            }
            DownloadDocument document = DownloadDocument.parse(platform, download.url(), download.document(), what);
            ReleaseJudgement.requireNamedFor(address, version, platform, document.filename());
            ReleaseEvidence.Checksums checksums = evidence.checksums().stream()
                    .filter(c -> c.url().equals(document.shasumsUrl())
                            && c.signatureUrl().equals(document.shasumsSignatureUrl()))
                    .findFirst()
                    .orElseThrow(() -> new OriginException(
                            OriginException.Reason.BAD_RESPONSE,
                            what + ": its SHA256SUMS " + document.shasumsUrl() + " was not fetched"));
            ReleaseJudgement.Claim claim = new ReleaseJudgement.Claim(
                    platform,
                    document.filename(),
                    document.downloadUrl(),
                    document.shasum(),
                    document.shasumsUrl(),
                    document.signingKeys(),
                    checksums.sums(),
                    checksums.signature());
            packages.put(platform, ReleaseJudgement.judge(address, version, claim, policy, at));
        }
        return withPackages(new VerifiedRelease(address, version, packages));
    }

    /**
     * {@code release}, when it has a package: evidence of no package at all (no download document, or a parent's
     * document without archives) vouches for nothing, and stored it would make the version permanently empty.
     */
    private static VerifiedRelease withPackages(VerifiedRelease release) {
        if (release.packages().isEmpty()) {
            throw new OriginException(
                    OriginException.Reason.BAD_RESPONSE,
                    release.address() + " " + release.version()
                            + ": its evidence holds no platform package; a release without packages is refused");
        }
        return release;
    }
}
