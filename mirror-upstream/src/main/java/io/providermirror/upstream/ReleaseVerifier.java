package io.providermirror.upstream;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Checks a release's evidence the way the CLI checks a package before installing it: SHA256SUMS lists the
 * package's file name with the announced hash, and SHA256SUMS carries a valid signature by one of the keys
 * in the package's download document. (The third check, the archive's own hash, is made on the archive's
 * bytes when they are fetched.)
 */
public final class ReleaseVerifier {

    private ReleaseVerifier() {
    }

    /**
     * @throws VerificationException when any package fails a check; a release is trusted whole or not at all
     * @throws OriginException       when the evidence is malformed
     */
    public static VerifiedRelease verify(ProviderAddress address, ProviderVersion version, ReleaseEvidence evidence) {
        return verify(address, version, evidence, SignaturePolicy.defaultFor(address.hostname()));
    }

    /**
     * As {@link #verify(ProviderAddress, ProviderVersion, ReleaseEvidence)}, under {@code policy}.
     *
     * @throws VerificationException when any package fails a check; a release is trusted whole or not at all
     * @throws OriginException       when the evidence is malformed
     */
    public static VerifiedRelease verify(ProviderAddress address, ProviderVersion version, ReleaseEvidence evidence,
                                         SignaturePolicy policy) {
        if (evidence.parentMirror() != null) {
            return ParentMirrorClient.release(address, version, evidence.parentMirror());
        }
        Map<Platform, VerifiedPackage> packages = new HashMap<>();
        for (ReleaseEvidence.Download download : evidence.downloads()) {
            Platform platform = Platform.parse(download.platform());
            String what = "the download document of " + address + " " + version + " " + platform;
            DownloadDocument document = DownloadDocument.parse(platform, download.url(), download.document(), what);
            ReleaseEvidence.Checksums checksums = evidence.checksums().stream()
                    .filter(c -> c.url().equals(document.shasumsUrl())
                            && c.signatureUrl().equals(document.shasumsSignatureUrl()))
                    .findFirst()
                    .orElseThrow(() -> new OriginException(OriginException.Reason.BAD_RESPONSE,
                            what + ": its SHA256SUMS " + document.shasumsUrl() + " was not fetched"));
            Sha256Sums sums;
            try {
                sums = Sha256Sums.parse(checksums.sums());
            } catch (IllegalArgumentException e) {
                throw new VerificationException(VerificationException.Check.CHECKSUM_LISTING, address + " " + version
                        + " " + platform + ": SHA256SUMS " + document.shasumsUrl() + " is malformed: " + e.getMessage());
            }
            String listed = sums.hashOf(document.filename()).orElse(null);
            if (!Objects.equals(listed, document.shasum())) {
                throw new VerificationException(VerificationException.Check.CHECKSUM_LISTING, address + " " + version
                        + " " + platform + ": SHA256SUMS " + document.shasumsUrl()
                        + (listed == null ? " does not list " + document.filename()
                        : " lists " + document.filename() + " with hash " + listed + ", but the download document says "
                        + document.shasum()));
            }
            String keyId;
            try {
                keyId = signature(address, checksums, document, policy);
            } catch (VerificationException e) {
                throw new VerificationException(VerificationException.Check.SIGNATURE,
                        address + " " + version + " " + platform + ": " + e.getMessage()
                                + " (SHA256SUMS " + document.shasumsUrl() + ")");
            }
            packages.put(platform, new VerifiedPackage(platform, document.filename(), document.downloadUrl(),
                    document.shasum(), keyId));
        }
        return new VerifiedRelease(address, version, packages);
    }

    private static String signature(ProviderAddress address, ReleaseEvidence.Checksums checksums, DownloadDocument document,
                                    SignaturePolicy policy) {
        if (document.signingKeys().isEmpty() && policy.allowUnsigned() && policy.trustedKeys().isEmpty()) {
            return VerifiedPackage.UNSIGNED;
        }
        if (document.signingKeys().isEmpty()) {
            throw new VerificationException(VerificationException.Check.SIGNATURE, "the origin lists no signing keys, "
                    + "so the signature over SHA256SUMS cannot be checked (upstream.hosts." + address.hostname()
                    + ".allowUnsigned accepts such releases from this host)");
        }
        return OpenPgpSignatures.verify(checksums.sums(), checksums.signature(), document.signingKeys(),
                policy.trustedKeys(), "upstream.hosts." + address.hostname() + ".trustedKeys");
    }
}
