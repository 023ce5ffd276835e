package io.providermirror.server.scenario;

import static io.providermirror.server.scenario.MirrorFixture.error;
import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.PrometheusScrape;
import io.providermirror.testkit.TestPgpKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.bouncycastle.bcpg.CompressionAlgorithmTags;
import org.bouncycastle.openpgp.PGPCompressedDataGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An origin whose SHA256SUMS signature file is an OpenPGP compressed data packet: a few KiB that inflate to a
 * hundred thousand genuine signatures. The CLI refuses a signature file holding anything but signatures, so the
 * mirror refuses the release (a 502 naming the provider, the origin and why) without inflating it, and keeps serving.
 */
final class CompressedSignatureTest {

    @RegisterExtension
    static final MirrorExtension fixture = MirrorExtension.withDefaults();

    @Test
    void aSignatureFileInflatingToAFloodOfGenuineSignaturesIsRefusedUnopened() throws Exception {
        TestPgpKey key = fixture.origin().signingKey();
        FakeOrigin.Release release = fixture.origin()
                .publishSigned("acme", "inflating", "1.0.0", key, sums -> flood(key.signDetached(sums)), "linux_amd64");

        HttpResponse<byte[]> refused =
                fixture.mirror().get(fixture.mirror().providerPath("acme", "inflating") + "1.0.0.json");

        assertThat(refused.statusCode()).isEqualTo(502);
        assertThat(error(refused))
                .contains("example.test/acme/inflating 1.0.0 linux_amd64")
                .contains("holds a compressed data packet, where only signature packets may be");
        assertThat(fixture.origin().archiveDownloads(release, "linux_amd64")).isZero();
        PrometheusScrape metrics = PrometheusScrape.parse(
                new String(fixture.mirror().get("/metrics").body(), StandardCharsets.UTF_8));
        assertThat(metrics.value("mirror_verification_failures_total", "host", "example.test", "reason", "signature"))
                .isGreaterThanOrEqualTo(1);

        fixture.origin().publish("acme", "honest", "1.0.0", "linux_amd64");
        assertThat(fixture.mirror()
                        .get(fixture.mirror().providerPath("acme", "honest") + "1.0.0.json")
                        .statusCode())
                .as("the mirror goes on verifying")
                .isEqualTo(200);
    }

    /** {@code signature} a hundred thousand times over, in one ZLIB-compressed packet. */
    private static byte[] flood(byte[] signature) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PGPCompressedDataGenerator generator = new PGPCompressedDataGenerator(CompressionAlgorithmTags.ZLIB);
        try (OutputStream body = generator.open(out)) {
            for (int i = 0; i < 100_000; i++) {
                body.write(signature);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
