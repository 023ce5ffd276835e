package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.testkit.TestPgpKey;
import io.providermirror.upstream.verify.SignaturePolicy;
import io.providermirror.upstream.verify.VerificationException;
import io.providermirror.upstream.verify.VerifiedRelease;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What evidence vouches for which release: file names bound to the release, parent mirrors only where configured. */
final class ReleaseVerifierTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ProviderAddress ADDRESS = new ProviderAddress("example.test", "acme", "bound");
    private static final ProviderVersion VERSION = new ProviderVersion("1.2.0");
    private static final String SHA256 = "ab".repeat(32);

    // Made once per JVM, not per run of the class: RSA keys take a while, and mutation testing runs these tests
    // again for every mutant.
    private static final TestPgpKey key = TestPgpKey.generate("Origin <o@example.test>");
    private static final TestPgpKey notCrossSigned =
            TestPgpKey.generateFlawed("Origin <o@example.test>", TestPgpKey.Flaw.SUBKEY_WITHOUT_BACK_SIGNATURE);
    private static final TestPgpKey notForSigning =
            TestPgpKey.generateFlawed("Origin <o@example.test>", TestPgpKey.Flaw.PRIMARY_WITHOUT_KEY_FLAGS);
    private static final TestPgpKey madeAsGnuPgDoes = TestPgpKey.generateWithSigningSubkey("Origin <o@example.test>");

    @Test
    void aSignedFileNamedForThisProviderVersionAndPlatformVerifies() {
        VerifiedRelease release = VerifyNow.release(
                ADDRESS, VERSION, signed("linux_amd64", "terraform-provider-bound_1.2.0_linux_amd64.zip"));
        assertThat(release.find(Platform.parse("linux_amd64")).orElseThrow().sha256())
                .isEqualTo(SHA256);
        assertThat(VerifyNow.release(
                                ADDRESS, VERSION, signed("linux_amd64", "terraform-provider-bound_1.2_linux_amd64.zip"))
                        .packages())
                .as("the origin's shorter spelling of the same version")
                .hasSize(1);
    }

    @Test
    void aGenuinelySignedFileOfAnotherProviderVersionOrPlatformCannotBeFiledUnderThisRelease() {
        for (String other : List.of(
                "terraform-provider-other_1.2.0_linux_amd64.zip",
                "terraform-provider-bound_1.1.0_linux_amd64.zip",
                "terraform-provider-bound_1.2.0-rc1_linux_amd64.zip",
                "terraform-provider-bound_1.2.0_darwin_arm64.zip",
                "terraform-provider-bound_1.2.0_linux_amd64.tar.gz",
                "terraform-provider-bound__linux_amd64.zip",
                "bound.zip")) {
            assertThatThrownBy(() -> VerifyNow.release(ADDRESS, VERSION, signed("linux_amd64", other)))
                    .as(other)
                    .isInstanceOfSatisfying(
                            VerificationException.class,
                            e -> assertThat(e.check()).isEqualTo(VerificationException.Check.CHECKSUM_LISTING))
                    .hasMessageContaining("example.test/acme/bound 1.2.0 linux_amd64")
                    .hasMessageContaining("not terraform-provider-bound_1.2.0_linux_amd64.zip");
        }
    }

    @Test
    void parentMirrorEvidenceVouchesOnlyForAHostConfiguredWithThatMirrorAndOnlyFromBeneathIt() {
        URI parent = URI.create("https://dmz.corp.example/providers/");
        ReleaseEvidence evidence = fromParent("https://dmz.corp.example/providers/example.test/acme/bound/1.2.0.json");

        assertThatThrownBy(() -> VerifyNow.release(ADDRESS, VERSION, evidence))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("upstream.hosts.example.test.mirrorUrl is not set");
        assertThatThrownBy(() -> VerifyNow.release(ADDRESS, VERSION, evidence, new SignaturePolicy(true, Set.of())))
                .as("not even where unsigned releases are allowed")
                .isInstanceOf(VerificationException.class);

        assertThat(VerifyNow.release(ADDRESS, VERSION, evidence, new SignaturePolicy(false, Set.of(), parent))
                        .find(Platform.parse("linux_amd64"))
                        .orElseThrow()
                        .sha256())
                .isEqualTo(SHA256);
        assertThat(VerifyNow.release(
                        ADDRESS,
                        VERSION,
                        evidence,
                        new SignaturePolicy(false, Set.of(), URI.create("HTTPS://DMZ.corp.example:443/providers"))))
                .as("the same URL spelled otherwise")
                .isNotNull();

        for (String elsewhere : List.of(
                "https://dmz.corp.example/other/example.test/acme/bound/1.2.0.json",
                "https://dmz.corp.example/providers/../uploads/1.2.0.json",
                "https://dmz.corp.example:8443/providers/example.test/acme/bound/1.2.0.json",
                "http://dmz.corp.example/providers/example.test/acme/bound/1.2.0.json",
                "https://evil.example/providers/example.test/acme/bound/1.2.0.json",
                "https://dmz.corp.example.evil.example/providers/example.test/acme/bound/1.2.0.json",
                "https://dmz.corp.example/providers-2/example.test/acme/bound/1.2.0.json")) {
            assertThatThrownBy(() -> VerifyNow.release(
                            ADDRESS, VERSION, fromParent(elsewhere), new SignaturePolicy(false, Set.of(), parent)))
                    .as(elsewhere)
                    .isInstanceOf(VerificationException.class)
                    .hasMessageContaining("not beneath the network mirror " + parent);
        }
    }

    @Test
    void aHostWhoseSourceIsANetworkMirrorAcceptsNoOtherEvidence() {
        assertThatThrownBy(() -> VerifyNow.release(
                        ADDRESS,
                        VERSION,
                        signed("linux_amd64", "terraform-provider-bound_1.2.0_linux_amd64.zip"),
                        new SignaturePolicy(false, Set.of(), URI.create("https://dmz.corp.example/providers/"))))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("only source is the network mirror https://dmz.corp.example/providers/");
        assertThatThrownBy(() -> new SignaturePolicy(
                        false, Set.of(key.signingKeyId()), URI.create("https://dmz.corp.example/providers/")))
                .hasMessageContaining("set with mirrorUrl");
    }

    @Test
    void evidenceOfNoPackageAtAllVerifiesNothing() {
        assertThatThrownBy(() -> VerifyNow.release(
                        ADDRESS,
                        VERSION,
                        new ReleaseEvidence(List.of(), List.of()),
                        new SignaturePolicy(false, Set.of(key.signingKeyId()))))
                .isInstanceOf(OriginException.class)
                .hasMessageContaining("example.test/acme/bound 1.2.0: its evidence holds no platform package");
        URI parent = URI.create("https://dmz.corp.example/providers/");
        ObjectNode empty = JSON.createObjectNode();
        empty.putObject("archives");
        ReleaseEvidence noArchives =
                ReleaseEvidence.fromParentMirror(parent.resolve("example.test/acme/bound/1.2.0.json"), bytes(empty));
        assertThatThrownBy(() ->
                        VerifyNow.release(ADDRESS, VERSION, noArchives, new SignaturePolicy(false, Set.of(), parent)))
                .isInstanceOf(OriginException.class)
                .hasMessageContaining("holds no platform package");
    }

    @Test
    void aReleaseSignedByAKeyTheCliWouldNotUseIsRefusedWholeSayingWhy() {
        String filename = "terraform-provider-bound_1.2.0_linux_amd64.zip";
        assertThatThrownBy(() -> VerifyNow.release(ADDRESS, VERSION, signed("linux_amd64", filename, notCrossSigned)))
                .isInstanceOfSatisfying(
                        VerificationException.class,
                        e -> assertThat(e.check()).isEqualTo(VerificationException.Check.SIGNATURE))
                .hasMessageContaining("example.test/acme/bound 1.2.0 linux_amd64: ")
                .hasMessageContaining("the signing subkey " + notCrossSigned.signingKeyId()
                        + " has no cross-signature (back-signature) from itself, which the CLI requires");
        assertThatThrownBy(() -> VerifyNow.release(ADDRESS, VERSION, signed("linux_amd64", filename, notForSigning)))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("the primary key " + notForSigning.signingKeyId() + " carries no key flags");
        assertThat(VerifyNow.release(ADDRESS, VERSION, signed("linux_amd64", filename, madeAsGnuPgDoes))
                        .packages())
                .as("a key made as GnuPG makes them")
                .hasSize(1);
    }

    /** Registry evidence of one platform whose SHA256SUMS, signed by the origin's listed key, names {@code filename}. */
    private static ReleaseEvidence signed(String platform, String filename) {
        return signed(platform, filename, key);
    }

    /** As {@link #signed(String, String)}, signed by {@code signer} and listing it. */
    private static ReleaseEvidence signed(String platform, String filename, TestPgpKey signer) {
        byte[] sums = (SHA256 + "  " + filename + "\n").getBytes(StandardCharsets.UTF_8);
        URI sumsUrl = URI.create("https://example.test/files/SHA256SUMS");
        URI signatureUrl = URI.create("https://example.test/files/SHA256SUMS.sig");
        ObjectNode document = JSON.createObjectNode()
                .put("filename", filename)
                .put("download_url", "/files/" + filename)
                .put("shasums_url", sumsUrl.toString())
                .put("shasums_signature_url", signatureUrl.toString())
                .put("shasum", SHA256);
        document.putObject("signing_keys")
                .putArray("gpg_public_keys")
                .addObject()
                .put("key_id", signer.signingKeyId())
                .put("ascii_armor", signer.armoredPublicKey());
        URI url =
                URI.create("https://example.test/v1/providers/acme/bound/1.2.0/download/" + platform.replace('_', '/'));
        return new ReleaseEvidence(
                List.of(new ReleaseEvidence.Download(platform, url, bytes(document))),
                List.of(new ReleaseEvidence.Checksums(sumsUrl, sums, signatureUrl, signer.signDetached(sums))));
    }

    /** Parent-mirror evidence, read from {@code url}, listing linux_amd64 with a zh: hash. */
    private static ReleaseEvidence fromParent(String url) {
        ObjectNode document = JSON.createObjectNode();
        document.putObject("archives")
                .putObject("linux_amd64")
                .put("url", "terraform-provider-bound_1.2.0_linux_amd64.zip")
                .putArray("hashes")
                .add("zh:" + SHA256);
        return ReleaseEvidence.fromParentMirror(URI.create(url), bytes(document));
    }

    private static byte[] bytes(ObjectNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
