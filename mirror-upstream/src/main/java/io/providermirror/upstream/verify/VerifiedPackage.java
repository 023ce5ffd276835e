package io.providermirror.upstream.verify;

import io.providermirror.model.Platform;
import java.net.URI;
import java.util.List;

/**
 * A platform's package whose checksum is listed in SHA256SUMS and whose SHA256SUMS carries a valid signature
 * by one of the origin's keys (or, where the host's policy allows, an origin that lists no key:
 * {@link #UNSIGNED}; or, for a host served through a parent network mirror, the hashes that mirror publishes:
 * {@link #PARENT_MIRROR}). The archive must hash to {@code sha256}, or, when only {@code h1:} hashes are known
 * ({@code sha256} null), to one of {@code h1}.
 */
public record VerifiedPackage(
        Platform platform, String filename, URI downloadUrl, String sha256, String signingKeyId, List<String> h1) {

    /** The signing key of a package accepted without a signature, by policy. */
    public static final String UNSIGNED = "unsigned";
    /** The signing key of a package whose hashes a parent network mirror published. */
    public static final String PARENT_MIRROR = "parent-mirror";

    public VerifiedPackage {
        h1 = h1 == null ? List.of() : List.copyOf(h1);
        if (sha256 == null && h1.isEmpty()) {
            throw new IllegalArgumentException("a package needs a sha256 or an h1: hash to be checked against");
        }
    }

    /** A package verified from signed checksums, known by its sha256. */
    public VerifiedPackage(Platform platform, String filename, URI downloadUrl, String sha256, String signingKeyId) {
        this(platform, filename, downloadUrl, sha256, signingKeyId, List.of());
    }

    public boolean unsigned() {
        return UNSIGNED.equals(signingKeyId);
    }
}
