package io.providermirror.upstream.verify;

import static io.providermirror.upstream.verify.PgpBytes.concat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.testkit.TestPgpKey;
import io.providermirror.upstream.verify.ReleaseJudgement.Claim;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** How one platform's package of a release is judged, and what vouches for a release at all. */
final class ReleaseJudgementTest {

    private static final ProviderAddress ADDRESS = new ProviderAddress("example.test", "acme", "bound");
    private static final ProviderVersion VERSION = new ProviderVersion("1.2.0");
    private static final Platform PLATFORM = Platform.parse("linux_amd64");
    private static final String FILENAME = "terraform-provider-bound_1.2.0_linux_amd64.zip";
    private static final String SHA256 = "ab".repeat(32);
    private static final URI DOWNLOAD = URI.create("https://example.test/dl/" + FILENAME);
    private static final URI SUMS_URL = URI.create("https://example.test/dl/SHA256SUMS");
    private static final byte[] SUMS = sums(FILENAME, SHA256);
    private static final URI PARENT = URI.create("https://dmz.corp.example/providers/");

    // Made once per JVM, not per run of the class: RSA keys take a while, and mutation testing runs these tests
    // again for every mutant.
    private static final TestPgpKey key = TestPgpKey.generate("Origin <o@example.test>");
    private static final TestPgpKey stranger = TestPgpKey.generate("Stranger <x@example.test>");

    @Test
    void aPackageListedInSignedSums() {
        VerifiedPackage verified = judge(signedClaim(FILENAME, SUMS), SignaturePolicy.CLI);
        assertThat(verified).isEqualTo(new VerifiedPackage(PLATFORM, FILENAME, DOWNLOAD, SHA256, key.signingKeyId()));
        assertThat(verified.unsigned()).isFalse();
    }

    @Test
    void aFileNamedForAnotherReleaseIsRefusedBeforeAnythingElse() {
        // The sums do not even parse: the name is judged first.
        assertThatThrownBy(() -> judge(
                        claim(
                                "terraform-provider-bound_1.1.0_linux_amd64.zip",
                                "junk".getBytes(StandardCharsets.UTF_8),
                                List.of(),
                                null),
                        SignaturePolicy.CLI))
                .satisfies(e -> assertCheck(e, VerificationException.Check.CHECKSUM_LISTING))
                .hasMessage("example.test/acme/bound 1.2.0 linux_amd64: the signed file is "
                        + "terraform-provider-bound_1.1.0_linux_amd64.zip, not "
                        + "terraform-provider-bound_1.2.0_linux_amd64.zip: a package signed for another provider, "
                        + "version or platform cannot stand in for this one");
    }

    @Test
    void fileNamesOfThisReleaseOnly() {
        assertThat(named(FILENAME)).isTrue();
        assertThat(named("terraform-provider-bound_1.2_linux_amd64.zip"))
                .as("the origin's shorter spelling of the same version")
                .isTrue();
        for (String other : List.of(
                "terraform-provider-other_1.2.0_linux_amd64.zip",
                "terraform-provider-bound_1.2.0_darwin_arm64.zip",
                "terraform-provider-bound_1.2.0_linux_amd64.tar.gz",
                "terraform-provider-bound_1.3.0_linux_amd64.zip",
                "terraform-provider-bound_not-a-version_linux_amd64.zip",
                "terraform-provider-bound__linux_amd64.zip",
                // Prefix and suffix overlap in their '_': no version between them at all.
                "terraform-provider-bound_linux_amd64.zip")) {
            assertThat(named(other)).as(other).isFalse();
        }
    }

    @Test
    void sumsThatDoNotParseAreRefusedAsAMalformedListing() {
        assertThatThrownBy(() -> judge(
                        signedClaim(FILENAME, "not a listing\n".getBytes(StandardCharsets.UTF_8)), SignaturePolicy.CLI))
                .satisfies(e -> assertCheck(e, VerificationException.Check.CHECKSUM_LISTING))
                .hasMessage("example.test/acme/bound 1.2.0 linux_amd64: SHA256SUMS " + SUMS_URL
                        + " is malformed: SHA256SUMS line 1 is not '<sha256>  <file name>'");
    }

    @Test
    void sumsThatDoNotListThePackageAreRefused() {
        byte[] other = sums("terraform-provider-bound_1.2.0_darwin_arm64.zip", SHA256);
        assertThatThrownBy(() -> judge(signedClaim(FILENAME, other), SignaturePolicy.CLI))
                .satisfies(e -> assertCheck(e, VerificationException.Check.CHECKSUM_LISTING))
                .hasMessage("example.test/acme/bound 1.2.0 linux_amd64: SHA256SUMS " + SUMS_URL + " does not list "
                        + FILENAME);
    }

    @Test
    void sumsThatListAnotherHashThanTheDownloadDocumentAreRefused() {
        String listed = "cd".repeat(32);
        assertThatThrownBy(() -> judge(signedClaim(FILENAME, sums(FILENAME, listed)), SignaturePolicy.CLI))
                .satisfies(e -> assertCheck(e, VerificationException.Check.CHECKSUM_LISTING))
                .hasMessage("example.test/acme/bound 1.2.0 linux_amd64: SHA256SUMS " + SUMS_URL + " lists " + FILENAME
                        + " with hash " + listed + ", but the download document says " + SHA256);
    }

    @Test
    void aSignatureThatDoesNotVerifyIsRefusedNamingTheReleaseAndItsSums() {
        Claim byStranger = claim(FILENAME, SUMS, List.of(key.armoredPublicKey()), stranger.signDetached(SUMS));
        assertThatThrownBy(() -> judge(byStranger, SignaturePolicy.CLI))
                .satisfies(e -> assertCheck(e, VerificationException.Check.SIGNATURE))
                .hasMessageStartingWith("example.test/acme/bound 1.2.0 linux_amd64: ")
                .hasMessageContaining(stranger.signingKeyId())
                .hasMessageEndingWith(" (SHA256SUMS " + SUMS_URL + ")");
        assertThatThrownBy(() -> judge(byStranger, new SignaturePolicy(true, Set.of())))
                .as("allowUnsigned does not excuse a bad signature by a listed key")
                .satisfies(e -> assertCheck(e, VerificationException.Check.SIGNATURE));
    }

    @Test
    void trustedKeysPinTheKeysThatMaySignUnderTheHostsSetting() {
        SignaturePolicy pinned = new SignaturePolicy(false, Set.of(stranger.primaryFingerprint()));
        assertThatThrownBy(() -> judge(signedClaim(FILENAME, SUMS), pinned))
                .satisfies(e -> assertCheck(e, VerificationException.Check.SIGNATURE))
                .hasMessageContaining("upstream.hosts.example.test.trustedKeys");
        assertThat(judge(signedClaim(FILENAME, SUMS), new SignaturePolicy(false, Set.of(key.primaryFingerprint())))
                        .signingKeyId())
                .isEqualTo(key.signingKeyId());
    }

    @Test
    void signatureDatesAreJudgedAtTheGivenTime() {
        Instant made = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Claim claim = claim(
                FILENAME, SUMS, List.of(key.armoredPublicKey()), key.signDetached(SUMS, made, Duration.ofHours(1)));
        assertThat(ReleaseJudgement.judge(ADDRESS, VERSION, claim, SignaturePolicy.CLI, made.plusSeconds(60))
                        .signingKeyId())
                .isEqualTo(key.signingKeyId());
        assertThatThrownBy(() -> ReleaseJudgement.judge(
                        ADDRESS, VERSION, claim, SignaturePolicy.CLI, made.plus(Duration.ofHours(2))))
                .as("the check that failed is kept")
                .satisfies(e -> assertCheck(e, VerificationException.Check.SIGNATURE_EXPIRED))
                .hasMessageStartingWith("example.test/acme/bound 1.2.0 linux_amd64: ")
                .hasMessageContaining("expired");
    }

    @Test
    void withoutSigningKeysOnlyAnAllowUnsignedHostWithoutPinsAcceptsThePackageUnsigned() {
        Claim unsigned = claim(FILENAME, SUMS, List.of(), null);
        VerifiedPackage verified = judge(unsigned, new SignaturePolicy(true, Set.of()));
        assertThat(verified)
                .isEqualTo(new VerifiedPackage(PLATFORM, FILENAME, DOWNLOAD, SHA256, VerifiedPackage.UNSIGNED));
        assertThat(verified.unsigned()).isTrue();

        for (SignaturePolicy policy :
                List.of(SignaturePolicy.CLI, new SignaturePolicy(true, Set.of(key.primaryFingerprint())))) {
            assertThatThrownBy(() -> judge(unsigned, policy))
                    .as(policy.toString())
                    .satisfies(e -> assertCheck(e, VerificationException.Check.SIGNATURE))
                    .hasMessage("example.test/acme/bound 1.2.0 linux_amd64: the origin lists no signing keys, so the "
                            + "signature over SHA256SUMS cannot be checked (upstream.hosts.example.test.allowUnsigned "
                            + "accepts such releases from this host) (SHA256SUMS " + SUMS_URL + ")");
        }
    }

    @Test
    void anUnsignedPackageMustStillBeListedWithItsHash() {
        Claim unsigned = claim(FILENAME, sums(FILENAME, "cd".repeat(32)), List.of(), null);
        assertThatThrownBy(() -> judge(unsigned, new SignaturePolicy(true, Set.of())))
                .satisfies(e -> assertCheck(e, VerificationException.Check.CHECKSUM_LISTING));
    }

    @Test
    void aParentMirrorVouchesOnlyWhenConfiguredAndOnlyBeneathItsUrl() {
        URI beneath = URI.create("https://dmz.corp.example/providers/example.test/acme/bound/1.2.0.json");
        SignaturePolicy viaParent = new SignaturePolicy(false, Set.of(), PARENT);
        assertThatCode(() -> ReleaseJudgement.parentMirrorVouches(ADDRESS, VERSION, beneath, viaParent))
                .doesNotThrowAnyException();

        assertThatThrownBy(() -> ReleaseJudgement.parentMirrorVouches(
                        ADDRESS, VERSION, beneath, new SignaturePolicy(true, Set.of())))
                .satisfies(e -> assertCheck(e, VerificationException.Check.SIGNATURE))
                .hasMessage("example.test/acme/bound 1.2.0: its evidence claims to come from the network mirror "
                        + beneath + ", but upstream.hosts.example.test.mirrorUrl is not set, so no network mirror "
                        + "vouches for this host: its releases need a signature");

        URI elsewhere = URI.create("https://attacker.example/providers/example.test/acme/bound/1.2.0.json");
        assertThatThrownBy(() -> ReleaseJudgement.parentMirrorVouches(ADDRESS, VERSION, elsewhere, viaParent))
                .satisfies(e -> assertCheck(e, VerificationException.Check.SIGNATURE))
                .hasMessage("example.test/acme/bound 1.2.0: its evidence comes from " + elsewhere
                        + ", which is not beneath the network mirror " + PARENT
                        + " configured in upstream.hosts.example.test.mirrorUrl");
    }

    @Test
    void anOriginRegistryVouchesOnlyForAHostWithoutAParentMirror() {
        assertThatCode(() -> ReleaseJudgement.originRegistryVouches(ADDRESS, VERSION, SignaturePolicy.CLI))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> ReleaseJudgement.originRegistryVouches(
                        ADDRESS, VERSION, new SignaturePolicy(false, Set.of(), PARENT)))
                .satisfies(e -> assertCheck(e, VerificationException.Check.SIGNATURE))
                .hasMessage("example.test/acme/bound 1.2.0: its evidence comes from an origin registry, but this "
                        + "host's only source is the network mirror " + PARENT
                        + " (upstream.hosts.example.test.mirrorUrl)");
    }

    @Test
    void beneathIsTheSameSchemeHostAndPortAndAPathBelowTheBase() {
        assertThat(beneath("https://dmz.corp.example/providers/", PARENT))
                .as("the base itself")
                .isTrue();
        assertThat(beneath("https://dmz.corp.example/providers/a/b.json", PARENT))
                .isTrue();
        assertThat(beneath("HTTPS://DMZ.corp.EXAMPLE/providers/a.json", PARENT))
                .as("scheme and host in any case")
                .isTrue();
        assertThat(beneath("https://dmz.corp.example/providers/a/../b.json", PARENT))
                .as("normalized first")
                .isTrue();
        assertThat(beneath("https://dmz.corp.example/providers/../secret.json", PARENT))
                .isFalse();
        assertThat(beneath("https://dmz.corp.example/providersX/a.json", PARENT))
                .as("a sibling whose name starts alike")
                .isFalse();
        assertThat(beneath(
                        "https://dmz.corp.example/providers-evil/a.json",
                        URI.create("https://dmz.corp.example/providers")))
                .as("a base without its trailing slash")
                .isFalse();
        assertThat(beneath(
                        "https://dmz.corp.example/providers/a.json", URI.create("https://dmz.corp.example/providers")))
                .isTrue();
        assertThat(beneath("https://dmz.corp.example/a.json", URI.create("https://dmz.corp.example")))
                .as("a base without a path")
                .isTrue();
        assertThat(beneath("http://dmz.corp.example/providers/a.json", PARENT)).isFalse();
        assertThat(beneath("https://other.example/providers/a.json", PARENT)).isFalse();
        assertThat(beneath("https://dmz.corp.example:8443/providers/a.json", PARENT))
                .isFalse();
        assertThat(beneath("https://user@dmz.corp.example/providers/a.json", PARENT))
                .as("user info")
                .isFalse();
        // A '..' that normalizing keeps (one above the root) never counts as beneath, even a base holding one.
        assertThat(beneath("https://h.example/../p/a.json", URI.create("https://h.example/../p/")))
                .isFalse();
    }

    @Test
    void beneathRefusesWhatIsNoAbsoluteHierarchicalUrlWithAHost() {
        assertThat(ReleaseJudgement.isBeneath(null, PARENT)).isFalse();
        assertThat(beneath("/providers/a.json", PARENT)).as("relative").isFalse();
        assertThat(beneath("mailto:a@dmz.corp.example", PARENT)).as("opaque").isFalse();
        assertThat(beneath("https:/providers/a.json", PARENT)).as("no host").isFalse();
        assertThat(beneath("https://dmz.corp.example/providers/a.json", URI.create("file:///providers/")))
                .as("a base without a host")
                .isFalse();
    }

    @Test
    void beneathTakesEachSchemesDefaultPort() {
        URI http = URI.create("http://dmz.corp.example/providers/");
        assertThat(beneath("http://dmz.corp.example:80/providers/a.json", http)).isTrue();
        assertThat(beneath(
                        "http://dmz.corp.example/providers/a.json",
                        URI.create("http://dmz.corp.example:80/providers/")))
                .isTrue();
        assertThat(beneath("http://dmz.corp.example:443/providers/a.json", http))
                .isFalse();
        assertThat(beneath("https://dmz.corp.example:443/providers/a.json", PARENT))
                .isTrue();
        assertThat(beneath(
                        "https://dmz.corp.example/providers/a.json",
                        URI.create("https://dmz.corp.example:443/providers/")))
                .isTrue();
        assertThat(beneath("https://dmz.corp.example:80/providers/a.json", PARENT))
                .isFalse();
        assertThat(beneath("https://dmz.corp.example:0/providers/a.json", PARENT))
                .as("port 0 is a port of its own, not the default")
                .isFalse();
        assertThat(beneath("HTTP://dmz.corp.example:80/providers/a.json", http))
                .as("the scheme in any case")
                .isTrue();
    }

    @Test
    void signedAtIsTheLatestCreationTimeOfTheReleasesSignatures() {
        Instant earlier = Instant.parse("2026-01-02T03:04:05Z");
        Instant later = Instant.parse("2026-03-04T05:06:07Z");
        byte[] atEarlier = key.signDetached(SUMS, earlier, null);
        byte[] atLater = stranger.signDetached(SUMS, later, null);

        assertThat(ReleaseJudgement.signedAt(List.of(atEarlier))).contains(earlier);
        assertThat(ReleaseJudgement.signedAt(List.of(atEarlier, atLater))).contains(later);
        assertThat(ReleaseJudgement.signedAt(List.of(atLater, atEarlier))).contains(later);
        assertThat(ReleaseJudgement.signedAt(List.of(concat(atLater, atEarlier))))
                .as("several signatures in one file")
                .contains(later);
        assertThat(ReleaseJudgement.signedAt(List.of(concat(atEarlier, atLater))))
                .contains(later);
    }

    @Test
    void signedAtSkipsWhatIsNoSignature() {
        Instant made = Instant.parse("2026-01-02T03:04:05Z");
        byte[] signature = key.signDetached(SUMS, made, null);
        assertThat(ReleaseJudgement.signedAt(List.of())).isEmpty();
        assertThat(ReleaseJudgement.signedAt(List.of(new byte[0]))).isEmpty();
        assertThat(ReleaseJudgement.signedAt(List.of("not a signature".getBytes(StandardCharsets.UTF_8))))
                .isEmpty();
        assertThat(ReleaseJudgement.signedAt(
                        Arrays.asList(null, new byte[0], "garbage".getBytes(StandardCharsets.UTF_8), signature)))
                .contains(made);
    }

    private static VerifiedPackage judge(Claim claim, SignaturePolicy policy) {
        return ReleaseJudgement.judge(ADDRESS, VERSION, claim, policy, Instant.now());
    }

    private static boolean named(String filename) {
        return ReleaseJudgement.isFileNameOf(filename, ADDRESS, VERSION, PLATFORM);
    }

    private static boolean beneath(String url, URI base) {
        return ReleaseJudgement.isBeneath(URI.create(url), base);
    }

    /** A claim for {@code filename} with {@code sums}, signed by {@link #key}, which the origin lists. */
    private static Claim signedClaim(String filename, byte[] sums) {
        return claim(filename, sums, List.of(key.armoredPublicKey()), key.signDetached(sums));
    }

    private static Claim claim(String filename, byte[] sums, List<String> signingKeys, byte[] signature) {
        return new Claim(PLATFORM, filename, DOWNLOAD, SHA256, SUMS_URL, signingKeys, sums, signature);
    }

    private static byte[] sums(String filename, String sha256) {
        return (sha256 + "  " + filename + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private static void assertCheck(Throwable thrown, VerificationException.Check check) {
        assertThat(thrown)
                .isInstanceOfSatisfying(
                        VerificationException.class, e -> assertThat(e.check()).isEqualTo(check));
    }
}
