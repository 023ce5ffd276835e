package io.providermirror.upstream;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.net.URI;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Checks a release's evidence the way the CLI checks a package before installing it: SHA256SUMS lists the
 * package's file name with the announced hash, and SHA256SUMS carries a valid signature by one of the keys
 * in the package's download document, over a file named for this very provider, version and platform; or,
 * only for a host whose configured source is a network mirror, that mirror's published hashes, read from
 * beneath its configured URL. (The third check, the archive's own hash, is made on the archive's
 * bytes when they are fetched.)
 */
public final class ReleaseVerifier {

    private ReleaseVerifier() {}

    /**
     * When the origin signed SHA256SUMS of {@code evidence}, by the signatures' creation times (the latest, when the
     * release has several SHA256SUMS); empty for evidence without a signature (a parent mirror's, or unsigned). Read
     * only of evidence that {@link #verify} accepted.
     */
    public static Optional<Instant> signedAt(ReleaseEvidence evidence) {
        if (evidence.checksums() == null) {
            return Optional.empty();
        }
        return evidence.checksums().stream()
                .filter(checksums -> checksums.signature() != null && checksums.signature().length > 0)
                .map(checksums -> creationTime(checksums.signature()))
                .flatMap(Optional::stream)
                .max(Instant::compareTo);
    }

    /** The creation time the signer set in {@code signature}, the latest of several; empty when none can be read. */
    private static Optional<Instant> creationTime(byte[] signature) {
        try {
            return OpenPgpSignatures.readSignatures(signature).stream()
                    .map(candidate -> candidate.getCreationTime().toInstant())
                    .max(Instant::compareTo);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
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
        String setting = "upstream.hosts." + address.hostname() + ".mirrorUrl";
        if (evidence.parentMirror() != null) {
            URI claimed = evidence.parentMirror().url();
            if (policy.parentMirror() == null) {
                throw new VerificationException(
                        VerificationException.Check.SIGNATURE,
                        address + " " + version
                                + ": its evidence claims to come from the network mirror " + claimed + ", but "
                                + setting
                                + " is not set, so no network mirror vouches for this host: its releases need a signature");
            }
            if (!isBeneath(claimed, policy.parentMirror())) {
                throw new VerificationException(
                        VerificationException.Check.SIGNATURE,
                        address + " " + version
                                + ": its evidence comes from " + claimed + ", which is not beneath the network mirror "
                                + policy.parentMirror() + " configured in " + setting);
            }
            return withPackages(ParentMirrorClient.release(address, version, evidence.parentMirror()));
        }
        if (policy.parentMirror() != null) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    address + " " + version
                            + ": its evidence comes from an origin registry, but this host's only source is the network mirror "
                            + policy.parentMirror() + " (" + setting + ")");
        }
        Map<Platform, VerifiedPackage> packages = new HashMap<>();
        for (ReleaseEvidence.Download download : evidence.downloads()) {
            Platform platform = Platform.parse(download.platform());
            String what = "the download document of " + address + " " + version + " " + platform;
            if (packages.containsKey(platform)) {
                throw new OriginException(OriginException.Reason.BAD_RESPONSE, what + " is in the evidence twice");
            }
            DownloadDocument document = DownloadDocument.parse(platform, download.url(), download.document(), what);
            if (!isFileNameOf(document.filename(), address, version, platform)) {
                throw new VerificationException(
                        VerificationException.Check.CHECKSUM_LISTING,
                        address + " " + version
                                + " " + platform + ": the signed file is " + document.filename() + ", not "
                                + "terraform-provider-" + address.type() + "_" + version + "_" + platform
                                + ".zip: a package "
                                + "signed for another provider, version or platform cannot stand in for this one");
            }
            ReleaseEvidence.Checksums checksums = evidence.checksums().stream()
                    .filter(c -> c.url().equals(document.shasumsUrl())
                            && c.signatureUrl().equals(document.shasumsSignatureUrl()))
                    .findFirst()
                    .orElseThrow(() -> new OriginException(
                            OriginException.Reason.BAD_RESPONSE,
                            what + ": its SHA256SUMS " + document.shasumsUrl() + " was not fetched"));
            Sha256Sums sums;
            try {
                sums = Sha256Sums.parse(checksums.sums());
            } catch (IllegalArgumentException e) {
                throw new VerificationException(
                        VerificationException.Check.CHECKSUM_LISTING,
                        address + " " + version + " " + platform + ": SHA256SUMS " + document.shasumsUrl()
                                + " is malformed: " + e.getMessage());
            }
            String listed = sums.hashOf(document.filename()).orElse(null);
            if (!Objects.equals(listed, document.shasum())) {
                throw new VerificationException(
                        VerificationException.Check.CHECKSUM_LISTING,
                        address + " " + version
                                + " " + platform + ": SHA256SUMS " + document.shasumsUrl()
                                + (listed == null
                                        ? " does not list " + document.filename()
                                        : " lists " + document.filename() + " with hash " + listed
                                                + ", but the download document says " + document.shasum()));
            }
            String keyId;
            try {
                keyId = signature(address, checksums, document, policy, at);
            } catch (VerificationException e) {
                throw new VerificationException(
                        e.check(),
                        address + " " + version + " " + platform + ": " + e.getMessage() + " (SHA256SUMS "
                                + document.shasumsUrl() + ")");
            }
            packages.put(
                    platform,
                    new VerifiedPackage(
                            platform, document.filename(), document.downloadUrl(), document.shasum(), keyId));
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

    /**
     * True when {@code name} is {@code terraform-provider-<type>_<version>_<os>_<arch>.zip} for this release (the
     * version as the origin spells it, which may be a shorter form of the same version, such as {@code 1.2}).
     */
    static boolean isFileNameOf(String name, ProviderAddress address, ProviderVersion version, Platform platform) {
        String prefix = "terraform-provider-" + address.type() + "_";
        String suffix = "_" + platform + ".zip";
        if (!name.startsWith(prefix) || !name.endsWith(suffix) || name.length() <= prefix.length() + suffix.length()) {
            return false;
        }
        return ProviderVersion.parse(name.substring(prefix.length(), name.length() - suffix.length()))
                .filter(version::equals)
                .isPresent();
    }

    /** True when {@code url} is {@code base} or beneath it: same scheme, host and port, and a path below base's. */
    static boolean isBeneath(URI url, URI base) {
        if (url == null
                || !url.isAbsolute()
                || url.isOpaque()
                || url.getRawUserInfo() != null
                || url.getHost() == null
                || base.getHost() == null) {
            return false;
        }
        URI u = url.normalize();
        URI b = base.normalize();
        if (!u.getScheme().equalsIgnoreCase(b.getScheme())
                || !u.getHost().equalsIgnoreCase(b.getHost())
                || port(u) != port(b)) {
            return false;
        }
        String basePath = b.getRawPath() == null ? "/" : b.getRawPath();
        basePath = basePath.endsWith("/") ? basePath : basePath + "/";
        String path = u.getRawPath() == null ? "" : u.getRawPath();
        return path.startsWith(basePath) && !path.contains("/../") && !path.contains("/./");
    }

    private static int port(URI url) {
        if (url.getPort() >= 0) {
            return url.getPort();
        }
        return "http".equalsIgnoreCase(url.getScheme()) ? 80 : 443;
    }

    private static String signature(
            ProviderAddress address,
            ReleaseEvidence.Checksums checksums,
            DownloadDocument document,
            SignaturePolicy policy,
            Instant at) {
        if (document.signingKeys().isEmpty()
                && policy.allowUnsigned()
                && policy.trustedKeys().isEmpty()) {
            return VerifiedPackage.UNSIGNED;
        }
        if (document.signingKeys().isEmpty()) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the origin lists no signing keys, "
                            + "so the signature over SHA256SUMS cannot be checked (upstream.hosts." + address.hostname()
                            + ".allowUnsigned accepts such releases from this host)");
        }
        return OpenPgpSignatures.verify(
                checksums.sums(),
                checksums.signature(),
                document.signingKeys(),
                policy.trustedKeys(),
                "upstream.hosts." + address.hostname() + ".trustedKeys",
                at);
    }
}
