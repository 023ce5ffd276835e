package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static io.providermirror.server.scenario.MirrorFixture.error;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.server.app.MirrorWiring;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.FakeOriginExtension;
import io.providermirror.testkit.PrometheusScrape;
import io.providermirror.testkit.TestPgpKey;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Signature policy per origin host: the CLI's rule by default, unsigned releases only where allowed (by
 * default only from OpenTofu's registry, counted), and pinned keys that refuse every other key.
 */
final class SignaturePolicyTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;

    @RegisterExtension
    static final FakeOriginExtension fixture = new FakeOriginExtension();

    @BeforeAll
    static void start() {
        fixture.origin().publish("acme", "unsigned", "1.0.0", FakeOrigin.Tamper.UNSIGNED, 0, "linux_amd64");
        fixture.origin().publish("acme", "signed", "1.0.0", "linux_amd64");
    }

    @Test
    void byDefaultAnOriginWithoutKeysIsRefused() throws Exception {
        try (MirrorFixture mirror =
                MirrorFixture.start(tmp.resolve("default"), fixture.origin(), java.time.Duration.ofMinutes(15))) {
            HttpResponse<byte[]> response = mirror.get(mirror.providerPath("acme", "unsigned") + "1.0.0.json");
            assertThat(response.statusCode()).isEqualTo(502);
            assertThat(error(response))
                    .contains("lists no signing keys")
                    .contains("upstream.hosts.example.test.allowUnsigned");
        }
    }

    @Test
    void openTofusRegistryMayServeUnsignedReleasesAndEachIsCounted() throws Exception {
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("tofu"), fixture.origin())
                .set(
                        "upstream.hosts",
                        Map.of(
                                "registry.opentofu.org",
                                Map.of(
                                        "discoveryUrl",
                                        fixture.origin().discoveryUrl().toString())))
                .start()) {
            String base = "/providers/registry.opentofu.org/acme/unsigned/";
            assertThat(mirror.get(base + "1.0.0.json").statusCode()).isEqualTo(200);
            HttpResponse<byte[]> archive = mirror.get(base + "terraform-provider-unsigned_1.0.0_linux_amd64.zip");
            assertThat(archive.statusCode()).isEqualTo(200);
            PrometheusScrape metrics =
                    PrometheusScrape.parse(new String(mirror.get("/metrics").body(), StandardCharsets.UTF_8));
            assertThat(metrics.value("mirror_unsigned_releases_total", "host", "registry.opentofu.org"))
                    .isEqualTo(1);
        }
    }

    @Test
    void anyHostMayBeAllowedUnsignedReleasesExplicitly() throws Exception {
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("allowed"), fixture.origin())
                .set("upstream.hosts.example\\.test.allowUnsigned", true)
                .start()) {
            assertThat(mirror.get(mirror.providerPath("acme", "unsigned") + "1.0.0.json")
                            .statusCode())
                    .isEqualTo(200);
        }
    }

    @Test
    void pinnedKeysAreTheOnlyOnesAccepted() throws Exception {
        TestPgpKey stranger = TestPgpKey.generate("Stranger <x@example.test>");
        try (MirrorFixture pinnedRight = MirrorFixture.builder(tmp.resolve("pinned"), fixture.origin())
                        .set(
                                "upstream.hosts.example\\.test.trustedKeys",
                                List.of(fixture.origin().signingKey().primaryFingerprint()))
                        .start();
                MirrorFixture pinnedWrong = MirrorFixture.builder(tmp.resolve("wrong"), fixture.origin())
                        .set("upstream.hosts.example\\.test.trustedKeys", List.of(stranger.primaryFingerprint()))
                        .start()) {
            assertThat(pinnedRight
                            .get(pinnedRight.providerPath("acme", "signed") + "1.0.0.json")
                            .statusCode())
                    .isEqualTo(200);
            HttpResponse<byte[]> refused = pinnedWrong.get(pinnedWrong.providerPath("acme", "signed") + "1.0.0.json");
            assertThat(refused.statusCode()).isEqualTo(502);
            assertThat(error(refused)).contains("is among the keys pinned in upstream.hosts.example.test.trustedKeys");
            HttpResponse<byte[]> unsigned =
                    pinnedRight.get(pinnedRight.providerPath("acme", "unsigned") + "1.0.0.json");
            assertThat(unsigned.statusCode()).as("a pin requires a signature").isEqualTo(502);
        }
    }

    @Test
    void aRegistryListingThePinnedKeyBesideItsOwnInOneArmoredBlockCannotSignWithItsOwn() throws Exception {
        // A registry on a configured host, controlled by someone with a key of his own but not the pinned one.
        try (FakeOrigin attacker = FakeOrigin.start(tmp.resolve("attacker"))) {
            FakeOrigin.Release release = attacker.publish("acme", "smuggled", "1.0.0", "linux_amd64");
            String files = "/files/acme/smuggled/1.0.0/";
            ObjectNode download = JSON.createObjectNode()
                    .put("os", "linux")
                    .put("arch", "amd64")
                    .put("filename", release.fileName("linux_amd64"))
                    .put("download_url", files + release.fileName("linux_amd64"))
                    .put("shasums_url", files + "terraform-provider-smuggled_1.0.0_SHA256SUMS")
                    .put("shasums_signature_url", files + "terraform-provider-smuggled_1.0.0_SHA256SUMS.sig")
                    .put("shasum", release.sha256("linux_amd64"));
            download.putObject("signing_keys")
                    .putArray("gpg_public_keys")
                    .addObject()
                    .put(
                            "ascii_armor",
                            TestPgpKey.armoredTogether(fixture.origin().signingKey(), attacker.signingKey()));
            attacker.wireMock()
                    .stubFor(get(urlEqualTo("/v1/providers/acme/smuggled/1.0.0/download/linux/amd64"))
                            .willReturn(aResponse()
                                    .withHeader("Content-Type", "application/json")
                                    .withBody(download.toString())));

            try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("smuggled"), attacker)
                    .set(
                            "upstream.hosts.example\\.test.trustedKeys",
                            List.of(fixture.origin().signingKey().primaryFingerprint()))
                    .start()) {
                HttpResponse<byte[]> refused = mirror.get(mirror.providerPath("acme", "smuggled") + "1.0.0.json");
                assertThat(refused.statusCode()).isEqualTo(502);
                assertThat(error(refused))
                        .contains("example.test/acme/smuggled 1.0.0 linux_amd64")
                        .contains("made by key " + attacker.signingKey().signingKeyId())
                        .contains("upstream.hosts.example.test.trustedKeys");
                HttpResponse<byte[]> archive =
                        mirror.get(mirror.providerPath("acme", "smuggled") + release.fileName("linux_amd64"));
                assertThat(archive.statusCode()).isEqualTo(502);
            }
            assertThat(attacker.archiveDownloads(release, "linux_amd64")).isZero();
        }
    }

    @Test
    void aPinByKeyIdStillWorksButStartUpWarnsToPinTheFingerprint() throws Exception {
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines =
                new ch.qos.logback.core.read.ListAppender<>();
        ch.qos.logback.classic.Logger logger =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(MirrorWiring.class);
        lines.start();
        logger.addAppender(lines);
        String keyId = fixture.origin().signingKey().signingKeyId();
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("by-id"), fixture.origin())
                .set("upstream.hosts.example\\.test.trustedKeys", List.of(keyId))
                .start()) {
            assertThat(mirror.get(mirror.providerPath("acme", "signed") + "1.0.0.json")
                            .statusCode())
                    .isEqualTo(200);
        } finally {
            logger.detachAppender(lines);
        }
        assertThat(lines.list)
                .filteredOn(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN)
                .extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                .anySatisfy(line -> assertThat(line)
                        .contains("upstream.hosts.example.test.trustedKeys")
                        .contains(keyId)
                        .contains("40 hex digits"));
    }

    @Test
    void aMalformedPinStopsStartUpNamingTheKey() {
        assertThatThrownBy(() -> new ConfigLoader(Map.of())
                        .loadText("upstream: {hosts: {example.test: {trustedKeys: [HashiCorp]}}}"))
                .hasMessageContaining("configuration key 'upstream.hosts.example.test.trustedKeys': 'HashiCorp' "
                        + "(expected: a key ID of 16 hex digits or a fingerprint of 40 or 64)");
    }
}
