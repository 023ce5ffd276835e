package io.providermirror.server.scenario;

import static io.providermirror.server.scenario.MirrorFixture.error;
import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.FakeOriginExtension;
import io.providermirror.testkit.PrometheusScrape;
import io.providermirror.testkit.SettableClock;
import io.providermirror.testkit.TestPgpKey;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Signature dates through the whole server, as Terraform judges them: an origin serving SHA256SUMS with an expired
 * signature is refused at fill time (502 naming provider, origin and dates, counted, nothing cached); a key that
 * expired is tolerated as the CLI tolerates it; a release verified before its signature expired keeps being served
 * on the network mirror face, while the providers.v1 face, where the CLI checks the signature itself, answers 409.
 */
final class SignatureExpiryTest {

    private static final Duration MONTH = Duration.ofDays(30);
    private static final String FILE = "terraform-provider-%s_1.0.0_linux_amd64.zip";

    @TempDir
    Path tmp;

    @RegisterExtension
    static final FakeOriginExtension fixture = new FakeOriginExtension();

    @Test
    void anOriginServingAnExpiredSignatureIsRefusedAndNothingIsCached() throws Exception {
        Instant signed = Instant.now();
        TestPgpKey key = fixture.origin().signingKey();
        FakeOrigin.Release release = fixture.origin()
                .publishSigned(
                        "acme", "stale", "1.0.0", key, sums -> key.signDetached(sums, signed, MONTH), "linux_amd64");
        SettableClock clock = new SettableClock(signed);
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), fixture.origin())
                .clock(clock)
                .start()) {
            clock.advance(Duration.ofDays(45)); // after start-up, which makes the server's certificate by this clock
            HttpResponse<byte[]> refused = mirror.get(mirror.providerPath("acme", "stale") + "1.0.0.json");
            assertThat(refused.statusCode()).isEqualTo(502);
            assertThat(error(refused))
                    .contains("example.test/acme/stale 1.0.0 linux_amd64")
                    .contains("the signature over SHA256SUMS by " + key.signingKeyId() + " expired on "
                            + signed.plus(MONTH).truncatedTo(java.time.temporal.ChronoUnit.SECONDS))
                    .contains("the CLI refuses an expired signature");
            HttpResponse<byte[]> archive = mirror.get(mirror.providerPath("acme", "stale") + FILE.formatted("stale"));
            assertThat(archive.statusCode()).isEqualTo(502);
            PrometheusScrape metrics =
                    PrometheusScrape.parse(new String(mirror.get("/metrics").body(), StandardCharsets.UTF_8));
            assertThat(metrics.value(
                            "mirror_verification_failures_total",
                            "host",
                            "example.test",
                            "reason",
                            "signature_expired"))
                    .isGreaterThanOrEqualTo(1);
            assertThat(metrics.value("mirror_verification_failures_total", "reason", "signature"))
                    .as("counted under its own reason")
                    .isZero();
        }
        assertThat(fixture.origin().archiveDownloads(release, "linux_amd64")).isZero();
        assertThat(filesNamed(tmp, "release.json")).as("no evidence stored").isZero();
    }

    @Test
    void aKeyThatExpiredIsToleratedAsTheCliToleratesIt() throws Exception {
        Instant made = Instant.now();
        TestPgpKey monthLong =
                TestPgpKey.generateDated("Month <m@example.test>", true, new TestPgpKey.Dates(made, MONTH));
        fixture.origin()
                .publishSigned(
                        "acme",
                        "rotated",
                        "1.0.0",
                        monthLong,
                        sums -> monthLong.signDetached(sums, made, null),
                        "linux_amd64");
        SettableClock clock = new SettableClock(made);
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), fixture.origin())
                .clock(clock)
                .start()) {
            clock.advance(Duration.ofDays(400));
            assertThat(mirror.get(mirror.providerPath("acme", "rotated") + "1.0.0.json")
                            .statusCode())
                    .isEqualTo(200);
            assertThat(mirror.get(mirror.providerPath("acme", "rotated") + FILE.formatted("rotated"))
                            .statusCode())
                    .isEqualTo(200);
        }
    }

    @Test
    void aSignatureThatExpiresAfterTheFillKeepsTheNetworkMirrorServingButNotProvidersV1() throws Exception {
        Instant signed = Instant.now();
        TestPgpKey key = fixture.origin().signingKey();
        fixture.origin()
                .publishSigned(
                        "acme", "aging", "1.0.0", key, sums -> key.signDetached(sums, signed, MONTH), "linux_amd64");
        SettableClock clock = new SettableClock(signed.plusSeconds(60));
        String download = "/registry/example.test/providers.v1/acme/aging/1.0.0/download/linux/amd64";
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), fixture.origin())
                .clock(clock)
                .start()) {
            assertThat(mirror.get(mirror.providerPath("acme", "aging") + "1.0.0.json")
                            .statusCode())
                    .isEqualTo(200);
            assertThat(mirror.get(download).statusCode()).isEqualTo(200);
            clock.advance(Duration.ofDays(45));
            HttpResponse<byte[]> expired = mirror.get(download);
            assertThat(expired.statusCode())
                    .as("verified again once its verdict is older than an hour")
                    .isEqualTo(409);
            assertThat(error(expired)).contains("expired on").contains("network mirror protocol");
        }
        // After a restart the evidence is read back from disk and verified as of when it was stored.
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), fixture.origin())
                .clock(clock)
                .start()) {
            assertThat(mirror.get(mirror.providerPath("acme", "aging") + "1.0.0.json")
                            .statusCode())
                    .isEqualTo(200);
            assertThat(mirror.get(mirror.providerPath("acme", "aging") + FILE.formatted("aging"))
                            .statusCode())
                    .isEqualTo(200);
            HttpResponse<byte[]> expired = mirror.get(download);
            assertThat(expired.statusCode()).isEqualTo(409);
            assertThat(error(expired))
                    .contains("example.test/acme/aging 1.0.0")
                    .contains("the signature over SHA256SUMS by " + key.signingKeyId() + " expired on");
        }
    }

    private static long filesNamed(Path directory, String name) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(file -> file.getFileName().toString().equals(name))
                    .count();
        }
    }
}
