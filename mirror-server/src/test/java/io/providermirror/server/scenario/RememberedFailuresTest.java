package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.SettableClock;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tampered archive is fetched from its origin once per {@code upstream.verificationFailureTtl}: the CLI's retries
 * within it get the 502 with the reason at once, counted, and the origin is not asked again until it has passed.
 */
final class RememberedFailuresTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    /** The status of a GET, or 0 when the mirror cut a response that had started (the last byte held back). */
    private static int status(MirrorFixture mirror, String path) throws Exception {
        try {
            return mirror.get(path).statusCode();
        } catch (IOException cut) {
            return 0;
        }
    }

    @Test
    void retriesOfARefusedArchiveAreRefusedAtOnceWithoutAskingTheOriginUntilTheTimeHasPassed() throws Exception {
        SettableClock clock = new SettableClock();
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"))) {
            origin.publish("acme", "tampered", "1.0.0", FakeOrigin.Tamper.ARCHIVE_BYTES, 0, "linux_amd64");
            String archive = "/providers/example.test/acme/tampered/terraform-provider-tampered_1.0.0_linux_amd64.zip";
            String archiveAtOrigin = ".*terraform-provider-tampered_1.0.0_linux_amd64.zip";
            try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                    .set("upstream.verificationFailureTtl", "5m")
                    .clock(clock)
                    .start()) {
                assertThat(status(mirror, archive)).isIn(0, 502);
                assertThat(origin.requestsMatching(archiveAtOrigin)).isEqualTo(1);

                for (int retry = 0; retry < 3; retry++) {
                    HttpResponse<byte[]> again = mirror.get(archive);
                    assertThat(again.statusCode()).isEqualTo(502);
                    assertThat(JSON.readTree(again.body()).get("errors").get(0).asText())
                            .contains("does not match the sha256")
                            .contains("refused again without asking the origin until")
                            .contains("upstream.verificationFailureTtl");
                }
                assertThat(origin.requestsMatching(archiveAtOrigin))
                        .as("the retries did not reach the origin")
                        .isEqualTo(1);
                assertThat(new String(mirror.get("/metrics").body(), java.nio.charset.StandardCharsets.UTF_8))
                        .contains(
                                "mirror_refusals_total{host=\"example.test\",reason=\"verification_remembered\"} 3.0");

                clock.advance(Duration.ofMinutes(5).plusSeconds(1));
                assertThat(status(mirror, archive)).isIn(0, 502);
                assertThat(origin.requestsMatching(archiveAtOrigin))
                        .as("once the time has passed, the origin is asked again")
                        .isEqualTo(2);
            }
        }
    }
}
