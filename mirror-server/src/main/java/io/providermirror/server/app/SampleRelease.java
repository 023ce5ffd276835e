package io.providermirror.server.app;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.ReleaseEvidence;
import io.providermirror.upstream.ReleaseVerifier;
import io.providermirror.upstream.verify.PackageHashes;
import io.providermirror.upstream.verify.SignaturePolicy;
import io.providermirror.upstream.verify.VerifiedPackage;
import io.providermirror.upstream.verify.VerifiedRelease;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.apache.commons.compress.utils.SeekableInMemoryByteChannel;

/**
 * A signed release that ships inside the mirror, verified once in the background after start-up
 * ({@link OriginWarmUp}) exactly as an origin's release is (its download document read, SHA256SUMS and its OpenPGP
 * signature checked against the key the document lists, the archive's {@code sha256} and {@code h1:} computed), so
 * that the first client's cold provider does not wait for the classes and first runs of that code. It is read from
 * the jar only, kept nowhere, and vouches for nothing: its address ({@code warm-up.invalid}) names no origin, and its
 * key, made for it alone (with {@code TestPgpKey.generateWithSigningSubkey} and {@code ProviderZips.provider} of
 * mirror-testkit), signs nothing else.
 */
final class SampleRelease {

    private static final String RESOURCES = "warm-up/";
    static final String ARCHIVE = "terraform-provider-warm-up_1.0.0_linux_amd64.zip";
    private static final URI FILES = URI.create("https://warm-up.invalid/files/");
    static final ProviderAddress ADDRESS = ProviderAddress.parse("warm-up.invalid/provider-mirror/warm-up");
    static final ProviderVersion VERSION = ProviderVersion.parse("1.0.0").orElseThrow();
    static final Platform PLATFORM = Platform.parse("linux_amd64");
    /**
     * When the warm-up judges the sample's signature: a fixed time after it was made (2026-11-27) rather than the
     * clock's, so that a clock set back (a test's, a machine's) never makes the sample look signed in the future.
     */
    private static final Instant JUDGED_AT = Instant.parse("2026-12-01T00:00:00Z");

    private SampleRelease() {}

    /**
     * Verifies the sample release under the CLI's policy, its signature judged at {@link #JUDGED_AT}, and computes its
     * archive's {@code h1:}.
     *
     * @return the package as verified, with the {@code h1:} computed from the archive
     * @throws RuntimeException when it does not verify (the jar is damaged: a test keeps it verifying)
     */
    static VerifiedPackage verify() {
        VerifiedRelease release = ReleaseVerifier.verify(ADDRESS, VERSION, evidence(), SignaturePolicy.CLI, JUDGED_AT);
        VerifiedPackage verified = release.find(PLATFORM).orElseThrow();
        try {
            String h1 = PackageHashes.h1(new SeekableInMemoryByteChannel(read(ARCHIVE)));
            return new VerifiedPackage(
                    verified.platform(),
                    verified.filename(),
                    verified.downloadUrl(),
                    verified.sha256(),
                    verified.signingKeyId(),
                    List.of(h1));
        } catch (IOException e) {
            throw new UncheckedIOException("the sample release's archive cannot be read", e);
        }
    }

    /** The sample's release evidence, as an origin's is kept: its download document, SHA256SUMS and signature. */
    static ReleaseEvidence evidence() {
        return new ReleaseEvidence(
                List.of(new ReleaseEvidence.Download(
                        PLATFORM.toString(), URI.create("https://warm-up.invalid/download"), read("download.json"))),
                List.of(new ReleaseEvidence.Checksums(
                        FILES.resolve("SHA256SUMS"),
                        read("SHA256SUMS"),
                        FILES.resolve("SHA256SUMS.sig"),
                        read("SHA256SUMS.sig"))));
    }

    /**
     * The sample's download document as an origin at {@code base} serves it: its URLs at that origin instead of
     * {@code https://warm-up.invalid/} (they are not signed; what they lead to is).
     */
    static byte[] downloadDocument(URI base) {
        return new String(read("download.json"), StandardCharsets.UTF_8)
                .replace("https://warm-up.invalid/", base.toString())
                .getBytes(StandardCharsets.UTF_8);
    }

    /** One of the release's checksum files, {@code SHA256SUMS} or {@code SHA256SUMS.sig}, as published. */
    static byte[] file(String name) {
        if (!name.equals("SHA256SUMS") && !name.equals("SHA256SUMS.sig")) {
            throw new IllegalArgumentException("the sample release has no file " + name);
        }
        return read(name);
    }

    /** The sample archive's bytes, as published and as the rehearsal's client must receive them. */
    static byte[] archive() {
        return read(ARCHIVE);
    }

    private static byte[] read(String name) {
        try (InputStream in = SampleRelease.class.getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IllegalStateException("the sample release's " + name + " is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("the sample release's " + name + " cannot be read", e);
        }
    }
}
