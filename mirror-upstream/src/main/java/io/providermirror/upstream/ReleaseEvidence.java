package io.providermirror.upstream;

import java.net.URI;
import java.util.List;

/**
 * What an origin said about one provider version, byte for byte: the download document of each platform
 * and the SHA256SUMS documents with their signatures. It is what the mirror persists; everything it
 * serves about the version is derived from it by {@link ReleaseVerifier}, at fetch time and again after a
 * restart, so nothing unverified is ever trusted because it was on disk.
 */
public record ReleaseEvidence(List<Download> downloads, List<Checksums> checksums) {

    public ReleaseEvidence {
        downloads = List.copyOf(downloads);
        checksums = List.copyOf(checksums);
    }

    /** A platform's download document as the origin served it, with the final URL it was read from. */
    public record Download(String platform, URI url, byte[] document) {
    }

    /** A SHA256SUMS document and its detached signature, with the URLs they came from. */
    public record Checksums(URI url, byte[] sums, URI signatureUrl, byte[] signature) {
    }
}
