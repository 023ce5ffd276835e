package io.providermirror.upstream;

import java.net.URI;
import java.util.List;

/**
 * What an origin said about one provider version, byte for byte: the download document of each platform
 * and the SHA256SUMS documents with their signatures. It is what the mirror persists; everything it
 * serves about the version is derived from it by {@link ReleaseVerifier}, at fetch time and again after a
 * restart, so nothing unverified is ever trusted because it was on disk.
 */
public record ReleaseEvidence(List<Download> downloads, List<Checksums> checksums, ParentDocument parentMirror) {

    public ReleaseEvidence {
        downloads = List.copyOf(downloads);
        checksums = List.copyOf(checksums);
    }

    /** Evidence from an origin registry. */
    public ReleaseEvidence(List<Download> downloads, List<Checksums> checksums) {
        this(downloads, checksums, null);
    }

    /** Evidence from a parent network mirror: its version document, trusted as the parent's word. */
    public static ReleaseEvidence fromParentMirror(URI url, byte[] document) {
        return new ReleaseEvidence(List.of(), List.of(), new ParentDocument(url, document));
    }

    /** A parent network mirror's {@code <version>.json} as it served it, with the URL it was read from. */
    public record ParentDocument(URI url, byte[] document) {}

    /** A platform's download document as the origin served it, with the final URL it was read from. */
    public record Download(String platform, URI url, byte[] document) {}

    /** A SHA256SUMS document and its detached signature, with the URLs they came from. */
    public record Checksums(URI url, byte[] sums, URI signatureUrl, byte[] signature) {}
}
