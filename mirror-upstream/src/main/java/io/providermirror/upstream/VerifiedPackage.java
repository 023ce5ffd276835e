package io.providermirror.upstream;

import java.net.URI;

/**
 * A platform's package whose checksum is listed in SHA256SUMS and whose SHA256SUMS carries a valid signature
 * by one of the origin's keys (or, where the host's policy allows, an origin that lists no key:
 * {@link #UNSIGNED}); {@code sha256} is what the archive must hash to.
 */
public record VerifiedPackage(Platform platform, String filename, URI downloadUrl, String sha256, String signingKeyId) {

    /** The signing key of a package accepted without a signature, by policy. */
    public static final String UNSIGNED = "unsigned";

    public boolean unsigned() {
        return UNSIGNED.equals(signingKeyId);
    }
}
