package io.providermirror.upstream;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlMatching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.upstream.verify.RsaModuli;
import io.providermirror.upstream.verify.VerificationException;
import io.providermirror.upstream.verify.VerifiedPackage;
import io.providermirror.upstream.verify.VerifiedRelease;
import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The registry protocol against a signed fake origin over HTTPS, trusted through an extra CA bundle. */
final class RegistryClientTest {

    @TempDir
    static Path tmp;

    private static FakeOrigin origin;
    private static RegistryClient registry;
    private static URI base;

    @BeforeAll
    static void start() {
        origin = FakeOrigin.start(tmp);
        registry = new RegistryClient(OriginClients.http(origin.caCertificate()), OriginClients.LANES);
        base = new ServiceDiscovery(
                        OriginClients.http(origin.caCertificate()),
                        java.util.Map.of("example.test", origin.discoveryUrl()))
                .providersBase("example.test");
    }

    @AfterAll
    static void stop() {
        origin.close();
    }

    @BeforeEach
    void reset() {
        origin.wireMock().resetRequests();
    }

    private static ProviderAddress address(String type) {
        return new ProviderAddress("example.test", "acme", type);
    }

    @Test
    void aReleaseItsOriginsFullLaneRefusesPartWayLeavesNoRequestOfItsOwnToRunOnTheLane() {
        origin.publish("acme", "wide", "1.0.0", "linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64");
        ListedVersion listed = registry.versions(base, address("wide"))
                .list()
                .find(new ProviderVersion("1.0.0"))
                .orElseThrow();
        // A lane one task wide with room for two waiting, over a pool that only collects its tasks: the fourth
        // platform's download document is refused.
        ConcurrentLinkedQueue<Runnable> pool = new ConcurrentLinkedQueue<>();
        HostLanes lanes = new HostLanes(pool::add, 1, 2);
        RegistryClient narrow = new RegistryClient(OriginClients.http(origin.caCertificate()), lanes);
        origin.wireMock().resetRequests();

        assertThatThrownBy(() -> narrow.fetchRelease(base, address("wide"), listed))
                .isInstanceOf(LaneFullException.class);
        for (Runnable task = pool.poll(); task != null; task = pool.poll()) {
            task.run();
        }

        assertThat(origin.wireMock().findAll(getRequestedFor(urlMatching(".*/download/.*"))))
                .as("download documents requested for the release already refused")
                .isEmpty();
        assertThat(lanes.tasks("example.test"))
                .as("the lane, once its tasks ran")
                .isZero();
    }

    @Test
    void anOriginWhoseCaIsNotTrustedFailsWithATlsError() {
        RegistryClient untrusting = new RegistryClient(OriginClients.http(null), OriginClients.LANES);
        origin.publish("acme", "tls", "1.0.0", "linux_amd64");
        assertThatThrownBy(() -> untrusting.versions(base, address("tls")))
                .isInstanceOfSatisfying(
                        OriginException.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.UNAVAILABLE))
                .hasMessageContaining("TLS");
    }

    @Test
    void versionListsKeepOnlySemverAndRememberTheOriginsSpelling() {
        origin.wireMock()
                .stubFor(get(urlEqualTo("/v1/providers/acme/mixed/versions"))
                        .willReturn(aResponse()
                                .withHeader("Content-Type", "application/json")
                                .withBody(
                                        "{\"versions\":[{\"version\":\"1.2\",\"platforms\":[{\"os\":\"linux\",\"arch\":\"amd64\"},"
                                                + "{\"os\":\"Bad OS\",\"arch\":\"x\"}]},{\"version\":\"v2.0.0\"},{\"version\":\"2.1.0-beta\"},"
                                                + "{\"version\":42}]}")));
        VersionList list = registry.versions(base, address("mixed")).list();
        assertThat(list.versions().keySet())
                .extracting(ProviderVersion::canonical)
                .containsExactly("1.2.0", "2.1.0-beta");
        ListedVersion listed = list.find(new ProviderVersion("1.2.0")).orElseThrow();
        assertThat(listed.originSpelling()).isEqualTo("1.2");
        assertThat(listed.platforms()).containsExactly(new Platform("linux", "amd64"));
    }

    @Test
    void anUnknownProviderIsNotFound() {
        assertThatThrownBy(() -> registry.versions(base, address("nothing")))
                .isInstanceOfSatisfying(
                        OriginException.class, e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.NOT_FOUND))
                .hasMessageContaining("example.test/acme/nothing");
    }

    @Test
    void serverErrorsAndMalformedJsonAreReported() {
        origin.wireMock()
                .stubFor(get(urlEqualTo("/v1/providers/acme/broken/versions"))
                        .willReturn(aResponse().withStatus(500)));
        assertThatThrownBy(() -> registry.versions(base, address("broken")))
                .isInstanceOfSatisfying(
                        OriginException.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.UNAVAILABLE))
                .hasMessageContaining("HTTP 500");
        origin.wireMock()
                .stubFor(get(urlEqualTo("/v1/providers/acme/garbled/versions"))
                        .willReturn(aResponse().withBody("{\"versions\": [")));
        assertThatThrownBy(() -> registry.versions(base, address("garbled")))
                .isInstanceOfSatisfying(
                        OriginException.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.BAD_RESPONSE))
                .hasMessageContaining("not valid JSON");
        origin.wireMock()
                .stubFor(get(urlEqualTo("/v1/providers/acme/huge/versions"))
                        .willReturn(aResponse().withBody(new byte[100 * 1024])));
        assertThatThrownBy(() -> registry.versions(base, address("huge"))).hasMessageContaining("larger than");
    }

    @Test
    void fetchingAReleaseReadsItsFirstSigningKeyAheadOfAnyVerification() {
        origin.publish("acme", "ahead", "1.0.0", "linux_amd64");
        ListedVersion listed = listedVersion("ahead");
        List<BigInteger> moduli = RsaModuli.of(origin.signingKey().armoredPublicKey());
        RsaModuli.forgetChecked();

        ReleaseEvidence evidence = registry.fetchRelease(base, address("ahead"), listed);

        assertThat(moduli)
                .as("checked by Bouncy Castle during the fetch (beside SHA256SUMS and its signature), not by the"
                        + " verification after it")
                .allMatch(RsaModuli::checked);
        assertThat(VerifyNow.release(address("ahead"), listed.version(), evidence)
                        .find(new Platform("linux", "amd64")))
                .isPresent();
    }

    @Test
    void aReleaseIsFetchedWithRelativeUrlsAndVerified() {
        FakeOrigin.Release published = origin.publish("acme", "good", "1.0.0", "linux_amd64", "darwin_arm64");
        ListedVersion listed = listedVersion("good");
        ReleaseEvidence evidence = registry.fetchRelease(base, address("good"), listed);
        VerifiedRelease release = VerifyNow.release(address("good"), listed.version(), evidence);

        assertThat(release.packages())
                .containsOnlyKeys(new Platform("darwin", "arm64"), new Platform("linux", "amd64"));
        VerifiedPackage linux = release.find(new Platform("linux", "amd64")).orElseThrow();
        assertThat(linux.sha256()).isEqualTo(published.sha256("linux_amd64"));
        assertThat(linux.downloadUrl().toString())
                .isEqualTo(origin.discoveryUrl()
                        .resolve(published.archivePath("linux_amd64"))
                        .toString());
        assertThat(linux.signingKeyId()).isEqualTo(origin.signingKey().signingKeyId());
        assertThat(evidence.checksums()).hasSize(1);
        assertThat(origin.requestsMatching("/files/acme/good/1.0.0/.*zip"))
                .as("no archive is downloaded")
                .isZero();
    }

    @Test
    void aVersionsChecksumsAndTheirSignatureAreAskedForAtOnce() {
        FakeOrigin.Release published = origin.publish("acme", "together", "1.0.0", "linux_amd64");
        String sums = "/files/acme/together/1.0.0/terraform-provider-together_1.0.0_SHA256SUMS";
        java.util.concurrent.CountDownLatch signatureAsked = new java.util.concurrent.CountDownLatch(1);
        // SHA256SUMS is answered only once the signature has been asked for: one after the other never gets there.
        origin.answerDynamically(get(urlEqualTo(sums)), 1, request -> {
            try {
                if (!signatureAsked.await(20, java.util.concurrent.TimeUnit.SECONDS)) {
                    return aResponse().withStatus(503).build();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return aResponse().withStatus(503).build();
            }
            return aResponse().withBody(published.sha256Sums()).build();
        });
        origin.answerDynamically(get(urlEqualTo(sums + ".sig")), 1, request -> {
            signatureAsked.countDown();
            return aResponse()
                    .withBody(origin.signingKey().signDetached(published.sha256Sums()))
                    .build();
        });

        VerifiedRelease release = fetchAndVerify("together");

        assertThat(release.find(new Platform("linux", "amd64")).orElseThrow().sha256())
                .isEqualTo(published.sha256("linux_amd64"));
    }

    @Test
    void theArchiveStreamsTheOriginsBytes() throws IOException {
        FakeOrigin.Release published = origin.publish("acme", "stream", "1.0.0", "linux_amd64");
        ListedVersion listed = listedVersion("stream");
        VerifiedRelease release = VerifyNow.release(
                address("stream"), listed.version(), registry.fetchRelease(base, address("stream"), listed));
        VerifiedPackage pkg = release.find(new Platform("linux", "amd64")).orElseThrow();
        try (OriginHttpClient.ArchiveStream stream =
                registry.openArchive(base, address("stream"), listed.version(), pkg, pkg.downloadUrl())) {
            assertThat(stream.body().readAllBytes())
                    .isEqualTo(published.archives().get("linux_amd64"));
        }
    }

    @Test
    void aWrongSigningKeyFailsVerification() {
        origin.publish("acme", "wrongkey", "1.0.0", FakeOrigin.Tamper.WRONG_SIGNING_KEY, 0, "linux_amd64");
        assertThatThrownBy(() -> fetchAndVerify("wrongkey"))
                .isInstanceOfSatisfying(
                        VerificationException.class,
                        e -> assertThat(e.check()).isEqualTo(VerificationException.Check.SIGNATURE))
                .hasMessageContaining("example.test/acme/wrongkey 1.0.0 linux_amd64");
    }

    @Test
    void aShasumThatSha256SumsDoesNotListFailsVerification() {
        origin.publish("acme", "mismatch", "1.0.0", FakeOrigin.Tamper.SHASUM_MISMATCH, 0, "linux_amd64");
        assertThatThrownBy(() -> fetchAndVerify("mismatch"))
                .isInstanceOfSatisfying(
                        VerificationException.class,
                        e -> assertThat(e.check()).isEqualTo(VerificationException.Check.CHECKSUM_LISTING));
    }

    @Test
    void platformsWhoseDownloadIsMissingAreLeftOut() {
        origin.publish("acme", "partial", "1.0.0", "linux_amd64");
        origin.wireMock()
                .stubFor(get(urlEqualTo("/v1/providers/acme/partial/versions"))
                        .willReturn(aResponse()
                                .withHeader("Content-Type", "application/json")
                                .withBody(
                                        "{\"versions\":[{\"version\":\"1.0.0\",\"platforms\":[{\"os\":\"linux\",\"arch\":\"amd64\"},"
                                                + "{\"os\":\"plan9\",\"arch\":\"386\"}]}]}")));
        VerifiedRelease release = fetchAndVerify("partial");
        assertThat(release.packages()).containsOnlyKeys(new Platform("linux", "amd64"));
    }

    /** Version 1.0.0 of {@code type} as the origin's version list names it. */
    private static ListedVersion listedVersion(String type) {
        return registry.versions(base, address(type))
                .list()
                .find(new ProviderVersion("1.0.0"))
                .orElseThrow();
    }

    private VerifiedRelease fetchAndVerify(String type) {
        ListedVersion listed = listedVersion(type);
        return VerifyNow.release(address(type), listed.version(), registry.fetchRelease(base, address(type), listed));
    }

    @Test
    void evidenceReVerifiesAndAlteredEvidenceDoesNot() {
        origin.publish("acme", "evidence", "1.0.0", "linux_amd64");
        ListedVersion listed = listedVersion("evidence");
        ReleaseEvidence evidence = registry.fetchRelease(base, address("evidence"), listed);
        ReleaseEvidence.Checksums sums = evidence.checksums().get(0);
        byte[] otherHash = sums.sums().clone();
        otherHash[0] = (byte) (otherHash[0] == '0' ? '1' : '0');
        assertThatThrownBy(
                        () -> VerifyNow.release(address("evidence"), listed.version(), withSums(evidence, otherHash)))
                .isInstanceOfSatisfying(
                        VerificationException.class,
                        e -> assertThat(e.check()).isEqualTo(VerificationException.Check.CHECKSUM_LISTING));
        byte[] garbled = "<html>gateway error</html>\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThatThrownBy(() -> VerifyNow.release(address("evidence"), listed.version(), withSums(evidence, garbled)))
                .isInstanceOfSatisfying(
                        VerificationException.class,
                        e -> assertThat(e.check()).isEqualTo(VerificationException.Check.CHECKSUM_LISTING))
                .hasMessageContaining("malformed");
        assertThat(VerifyNow.release(address("evidence"), listed.version(), evidence)
                        .packages())
                .hasSize(1);
    }

    private static ReleaseEvidence withSums(ReleaseEvidence evidence, byte[] sums) {
        ReleaseEvidence.Checksums original = evidence.checksums().get(0);
        return new ReleaseEvidence(
                evidence.downloads(),
                List.of(new ReleaseEvidence.Checksums(
                        original.url(), sums, original.signatureUrl(), original.signature())));
    }
}
