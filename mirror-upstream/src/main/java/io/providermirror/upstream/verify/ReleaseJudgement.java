package io.providermirror.upstream.verify;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Judges a release the way the CLI judges a package before installing it, on what an origin already sent (read by
 * the origin's code, never fetched here): SHA256SUMS lists the package's file name with the announced hash, and
 * SHA256SUMS carries a valid signature by one of the keys in the package's download document, over a file named
 * for this very provider, version and platform; or, only for a host whose configured source is a network mirror,
 * that mirror's published hashes, read from beneath its configured URL. (The third check, the archive's own hash,
 * is made on the archive's bytes when they are fetched.)
 */
public final class ReleaseJudgement {

    private ReleaseJudgement() {}

    /**
     * One platform's package as its download document announced it, with the SHA256SUMS document and its detached
     * signature as the origin served them.
     */
    public record Claim(
            Platform platform,
            String filename,
            URI downloadUrl,
            String shasum,
            URI shasumsUrl,
            List<String> signingKeys,
            byte[] sums,
            byte[] signature) {

        public Claim {
            signingKeys = List.copyOf(signingKeys);
        }
    }

    /**
     * When the origin signed a release, by the creation times of {@code signatures} (its SHA256SUMS signatures; the
     * latest, when the release has several); empty when none is set or none can be read. Read only of a release
     * that was judged sound.
     */
    public static Optional<Instant> signedAt(List<byte[]> signatures) {
        return signatures.stream()
                .filter(signature -> signature != null && signature.length > 0)
                .map(ReleaseJudgement::creationTime)
                .flatMap(Optional::stream)
                .max(Instant::compareTo);
    }

    /** The creation time the signer set in {@code signature}, the latest of several; empty when none can be read. */
    private static Optional<Instant> creationTime(byte[] signature) {
        try {
            return SignatureFile.read(signature).stream()
                    .map(candidate -> candidate.getCreationTime().toInstant())
                    .max(Instant::compareTo);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Refuses evidence that a network mirror at {@code claimed} published, unless {@code policy} makes a network
     * mirror the host's only source and {@code claimed} is beneath it.
     *
     * @throws VerificationException when no configured network mirror vouches for it
     */
    public static void parentMirrorVouches(
            ProviderAddress address, ProviderVersion version, URI claimed, SignaturePolicy policy) {
        String setting = setting(address);
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
    }

    /**
     * Refuses evidence from an origin registry for a host whose only source, by {@code policy}, is a network mirror.
     *
     * @throws VerificationException when the host's source is a network mirror
     */
    public static void originRegistryVouches(ProviderAddress address, ProviderVersion version, SignaturePolicy policy) {
        if (policy.parentMirror() != null) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    address + " " + version
                            + ": its evidence comes from an origin registry, but this host's only source is the network mirror "
                            + policy.parentMirror() + " (" + setting(address) + ")");
        }
    }

    /**
     * Judges one platform's {@code claim} under {@code policy}, judging the dates of signatures at {@code at} (the CLI
     * judges them at the time it installs).
     *
     * @throws VerificationException when the package fails a check
     */
    public static VerifiedPackage judge(
            ProviderAddress address, ProviderVersion version, Claim claim, SignaturePolicy policy, Instant at) {
        Platform platform = claim.platform();
        requireNamedFor(address, version, platform, claim.filename());
        Sha256Sums sums;
        try {
            sums = Sha256Sums.parse(claim.sums());
        } catch (IllegalArgumentException e) {
            throw new VerificationException(
                    VerificationException.Check.CHECKSUM_LISTING,
                    address + " " + version + " " + platform + ": SHA256SUMS " + claim.shasumsUrl() + " is malformed: "
                            + e.getMessage());
        }
        String listed = sums.hashOf(claim.filename()).orElse(null);
        if (!Objects.equals(listed, claim.shasum())) {
            throw new VerificationException(
                    VerificationException.Check.CHECKSUM_LISTING,
                    address + " " + version
                            + " " + platform + ": SHA256SUMS " + claim.shasumsUrl()
                            + (listed == null
                                    ? " does not list " + claim.filename()
                                    : " lists " + claim.filename() + " with hash " + listed
                                            + ", but the download document says " + claim.shasum()));
        }
        String keyId;
        try {
            keyId = signature(address, claim, policy, at);
        } catch (VerificationException e) {
            throw new VerificationException(
                    e.check(),
                    address + " " + version + " " + platform + ": " + e.getMessage() + " (SHA256SUMS "
                            + claim.shasumsUrl() + ")");
        }
        return new VerifiedPackage(platform, claim.filename(), claim.downloadUrl(), claim.shasum(), keyId);
    }

    /**
     * Refuses a package whose signed file is not named for this provider, version and platform: a package signed
     * for another cannot stand in for this one.
     *
     * @throws VerificationException when {@code filename} names another provider, version or platform
     */
    public static void requireNamedFor(
            ProviderAddress address, ProviderVersion version, Platform platform, String filename) {
        if (!isFileNameOf(filename, address, version, platform)) {
            throw new VerificationException(
                    VerificationException.Check.CHECKSUM_LISTING,
                    address + " " + version
                            + " " + platform + ": the signed file is " + filename + ", not "
                            + "terraform-provider-" + address.type() + "_" + version + "_" + platform
                            + ".zip: a package "
                            + "signed for another provider, version or platform cannot stand in for this one");
        }
    }

    private static String setting(ProviderAddress address) {
        return "upstream.hosts." + address.hostname() + ".mirrorUrl";
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
    public static boolean isBeneath(URI url, URI base) {
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

    private static String signature(ProviderAddress address, Claim claim, SignaturePolicy policy, Instant at) {
        if (claim.signingKeys().isEmpty()
                && policy.allowUnsigned()
                && policy.trustedKeys().isEmpty()) {
            return VerifiedPackage.UNSIGNED;
        }
        if (claim.signingKeys().isEmpty()) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the origin lists no signing keys, "
                            + "so the signature over SHA256SUMS cannot be checked (upstream.hosts." + address.hostname()
                            + ".allowUnsigned accepts such releases from this host)");
        }
        return OpenPgpSignatures.verify(
                claim.sums(),
                claim.signature(),
                claim.signingKeys(),
                policy.trustedKeys(),
                "upstream.hosts." + address.hostname() + ".trustedKeys",
                at);
    }
}
