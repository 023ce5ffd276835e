package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.ModuleArchives;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A purge on a fleet of two instances sharing a bucket (S3Proxy on loopback): purged through one instance's operator
 * API, the version is gone from the bucket, and the other instance drops its local tier's copy and what its memory
 * held, so neither serves it any more (the origin is gone, so nothing fetches it again); and what the other instance
 * remembers of a module version's refused archive is forgotten with it.
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

    /**
     * A module version purged through one instance to let its source's new content in: the other instance, which
     * refused that content a moment ago because it did not match the pin (a refusal it remembers for
     * {@code upstream.verificationFailureTtl}), forgets the refusal when it follows the purge, whatever the archive's
     * type, and fetches and pins the new content on its next request.
     */
    @Test
    void theOtherInstanceForgetsAZipArchivesRememberedRefusalWhenItFollowsThePurge() throws Exception {
        FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
        FakeModuleRegistry registry = FakeModuleRegistry.of(origin);
        byte[] first = module("first");
        byte[] second = module("second");
        registry.serveArchive("/archives/net.zip", first);
        registry.publish("corp", "net", "aws", "1.0.0", "/archives/net.zip");
        String base = "/registry/" + MirrorFixture.HOST + "/modules.v1/corp/net/aws/1.0.0/";
        ModuleAddress address = new ModuleAddress(MirrorFixture.HOST, "corp", "net", "aws");
        ProviderVersion version = ProviderVersion.parse("1.0.0").orElseThrow();
        try (origin;
                MirrorFixture purging =
                        remembering(onBucket(tmp.resolve("cache-1"), origin)).start();
                MirrorFixture following =
                        remembering(onBucket(tmp.resolve("cache-2"), origin)).start()) {
            assertThat(following
                            .get(base + "download")
                            .headers()
                            .firstValue("X-Terraform-Get")
                            .orElseThrow())
                    .endsWith("/module.zip?archive=zip");
            assertThat(following.get(base + "module.zip").statusCode()).isEqualTo(200);
            // The source's content changes; the archive is gone from the bucket (as retention would remove it):
            // the next fetch finds content that does not match the pin, and is refused.
            registry.serveArchive("/archives/net.zip", second);
            following.mirror.core().blobs().remove(CacheLayout.moduleArchive(address, version, "zip"));
            assertThat(following.get(base + "module.zip").statusCode()).isEqualTo(502);
            int asked = origin.requestsMatching("/archives/net\\.zip");
            assertThat(following.get(base + "module.zip").statusCode()).isEqualTo(502);
            assertThat(origin.requestsMatching("/archives/net\\.zip"))
                    .as("refused again from memory, the source not asked")
                    .isEqualTo(asked);

            HttpResponse<byte[]> purged =
                    purging.send(HttpRequest.newBuilder(purging.url("/api/v1/modules/example.test/corp/net/aws/1.0.0"))
                            .header("Authorization", "Bearer " + OPERATOR_TOKEN)
                            .DELETE()
                            .build());
            assertThat(purged.statusCode())
                    .as(new String(purged.body(), StandardCharsets.UTF_8))
                    .isEqualTo(200);

            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> following.get(base + "module.zip").statusCode() == 200);
            assertThat(following.get(base + "module.zip").body())
                    .as("the source's new content, pinned anew")
                    .isEqualTo(second);
        }
    }

    /**
     * A module version's new content accepted through one instance ({@code modules accept}): the other instance,
     * which holds the old archive in its local tier (and in memory, served three times), drops it when it follows
     * the accept as it follows a purge, and fetches and pins the new content on its next request, where it served
     * the old one until the local copy was evicted.
     */
    @Test
    void theOtherInstanceDropsItsCopyOfTheOldArchiveWhenAModulesNewContentIsAcceptedOnTheFirst() throws Exception {
        FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
        FakeModuleRegistry registry = FakeModuleRegistry.of(origin);
        byte[] first = module("first");
        byte[] second = module("second");
        registry.serveArchive("/archives/acc.zip", first);
        registry.publish("corp", "acc", "aws", "1.0.0", "/archives/acc.zip");
        String base = "/registry/" + MirrorFixture.HOST + "/modules.v1/corp/acc/aws/1.0.0/";
        try (origin;
                MirrorFixture accepting =
                        onBucket(tmp.resolve("cache-1"), origin).start();
                MirrorFixture following =
                        onBucket(tmp.resolve("cache-2"), origin).start()) {
            assertThat(accepting.get(base + "download").statusCode()).isEqualTo(204);
            assertThat(accepting.get(base + "module.zip").body()).isEqualTo(first);
            assertThat(following.get(base + "download").statusCode()).isEqualTo(204);
            for (int i = 0; i < 3; i++) {
                assertThat(following.get(base + "module.zip").body()).isEqualTo(first);
            }

            registry.serveArchive("/archives/acc.zip", second);
            HttpResponse<byte[]> accepted = accepting.send(
                    HttpRequest.newBuilder(accepting.url("/api/v1/modules/example.test/corp/acc/aws/1.0.0/accept"))
                            .header("Authorization", "Bearer " + OPERATOR_TOKEN)
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build());
            assertThat(accepted.statusCode())
                    .as(new String(accepted.body(), StandardCharsets.UTF_8))
                    .isEqualTo(200);
            assertThat(accepting.get(base + "module.zip").body()).isEqualTo(second);
            accepting.awaitDecision("module.pinReleased", "example.test/corp/acc/aws");

            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(
                            () -> assertThat(following.get(base + "module.zip").body())
                                    .as("the new content, no longer the old copy")
                                    .isEqualTo(second));
        }
    }

    /** A module's zip whose one output says {@code value}: each content of a source distinct. */
    private static byte[] module(String value) {
        return ModuleArchives.zip(Map.of("main.tf", "output \"v\" {\n  value = \"" + value + "\"\n}\n"));
    }

    /** The default: a refused archive is refused from memory for five minutes, longer than a test. */
    private static MirrorFixture.Builder remembering(MirrorFixture.Builder builder) {
        return builder.set("upstream.verificationFailureTtl", "5m");
    }

    private static MirrorFixture.Builder onBucket(Path cache, FakeOrigin origin) {
        return bucket.mirror(cache, origin, "fleet/")
                .set("cache.indexTtl", "1s")
                .set("operator.tokens", List.of(MirrorAuth.hash(OPERATOR_TOKEN)));
    }
}
