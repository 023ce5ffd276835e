package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.providermirror.server.access.MirrorAuth;
import io.providermirror.testkit.FakeOrigin;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A purge on a fleet of two instances sharing a bucket (S3Proxy on loopback): purged through one instance's operator
 * API, the version is gone from the bucket, and the other instance drops its local tier's copy and what its memory
 * held, so neither serves it any more (the origin is gone, so nothing fetches it again).
 */
final class BucketPurgeTest {

    private static final String OPERATOR_TOKEN = "operator-secret-token";

    @RegisterExtension
    static final MirrorBucket bucket = MirrorBucket.named("purge");

    @TempDir
    Path tmp;

    @Test
    void aVersionPurgedThroughOneInstanceIsServedByNeither() throws Exception {
        FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
        origin.publish("acme", "fleet", "1.0.0", "linux_amd64");
        String base = "/providers/example.test/acme/fleet/";
        String archive = base + "terraform-provider-fleet_1.0.0_linux_amd64.zip";
        try (MirrorFixture first = onBucket(tmp.resolve("cache-1"), origin).start();
                MirrorFixture second = onBucket(tmp.resolve("cache-2"), origin).start()) {
            assertThat(first.get(archive).statusCode()).isEqualTo(200);
            assertThat(second.get(base + "1.0.0.json").statusCode()).isEqualTo(200);
            assertThat(second.get(archive).statusCode()).isEqualTo(200);
            origin.close();
            assertThat(second.get(archive).statusCode())
                    .as("served from the second instance's local tier without the origin")
                    .isEqualTo(200);

            HttpResponse<byte[]> purged =
                    first.send(HttpRequest.newBuilder(first.url("/api/v1/providers/example.test/acme/fleet/1.0.0"))
                            .header("Authorization", "Bearer " + OPERATOR_TOKEN)
                            .DELETE()
                            .build());
            assertThat(purged.statusCode())
                    .as(new String(purged.body(), StandardCharsets.UTF_8))
                    .isEqualTo(200);
            assertThat(first.get(archive).statusCode()).isNotEqualTo(200);
            assertThat(first.get(base + "1.0.0.json").statusCode()).isNotEqualTo(200);

            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> second.get(archive).statusCode() != 200
                            && second.get(base + "1.0.0.json").statusCode() != 200);
        }
    }

    private static MirrorFixture.Builder onBucket(Path cache, FakeOrigin origin) {
        return bucket.mirror(cache, origin, "fleet/")
                .set("cache.indexTtl", "1s")
                .set("operator.tokens", List.of(MirrorAuth.hash(OPERATOR_TOKEN)));
    }
}
