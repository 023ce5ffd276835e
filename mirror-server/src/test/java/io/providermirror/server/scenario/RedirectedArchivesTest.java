package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.ModuleArchives;
import io.providermirror.upstream.TrustedCertificates;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cache.s3.redirectArchives} through the whole mirror (S3Proxy on loopback): an archive committed in the
 * bucket is answered with a 307 to a presigned URL that a client follows to the exact bytes, whole or in a range;
 * a cold one is streamed as ever; HEAD and a matching conditional request are answered by the mirror; access
 * control is checked before any redirect; an archive in the local tier is served by the mirror itself while the
 * bucket does not answer; module archives are redirected too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class RedirectedArchivesTest {

    @RegisterExtension
    static final MirrorBucket bucket = MirrorBucket.named("redirects");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern REDIRECTS = Pattern.compile("(?m)^mirror_store_redirects_total (\\S+)$");

    @TempDir
    Path tmp;

    /** Clients reach the store at {@code localhost}, the mirror at {@code 127.0.0.1}: URLs are signed for the former. */
    private static URI clientsEndpoint() {
        return URI.create("http://localhost:" + bucket.server().endpoint().getPort());
    }

    private static MirrorFixture.Builder redirecting(Path cache, FakeOrigin origin, String prefix) {
        return bucket.mirror(
                        cache,
                        origin,
                        prefix,
                        "redirectArchives",
                        true,
                        "redirectEndpoint",
                        clientsEndpoint().toString())
                .withManagement();
    }

    private static String metrics(MirrorFixture mirror) throws Exception {
        return mirror.management("/metrics").body();
    }

    private static double redirects(MirrorFixture mirror) throws Exception {
        Matcher matcher = REDIRECTS.matcher(metrics(mirror));
        assertThat(matcher.find())
                .as("mirror_store_redirects_total is exported")
                .isTrue();
        return Double.parseDouble(matcher.group(1));
    }

    /** A client that follows redirects from the mirror's https to the store's http, as Terraform's does. */
    private static HttpClient following(MirrorFixture mirror) throws java.io.IOException {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.ALWAYS)
                .sslContext(TrustedCertificates.sslContext(
                        mirror.mirror.generatedCaFile().orElseThrow()))
                .build();
    }

    @Test
    void aCommittedArchiveIsRedirectedToItsObjectAndAColdOneIsStreamed() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-a"));
                MirrorFixture mirror =
                        redirecting(tmp.resolve("cache-a"), origin, "a/").start()) {
            FakeOrigin.Release release =
                    origin.publish("acme", "direct", "1.0.0", FakeOrigin.Tamper.NONE, 300_000, "linux_amd64");
            byte[] genuine = release.archives().get("linux_amd64");
            String archive = "/providers/example.test/acme/direct/terraform-provider-direct_1.0.0_linux_amd64.zip";
            assertThat(mirror.get("/providers/example.test/acme/direct/1.0.0.json")
                            .statusCode())
                    .isEqualTo(200);

            HttpResponse<byte[]> cold = mirror.get(archive);
            assertThat(cold.statusCode())
                    .as("cold: streamed, its client is waiting already")
                    .isEqualTo(200);
            assertThat(cold.headers().firstValue("X-Cache")).contains("MISS");
            assertThat(cold.body()).isEqualTo(genuine);
            assertThat(redirects(mirror)).isZero();

            HttpResponse<byte[]> redirect = mirror.get(archive);
            assertThat(redirect.statusCode()).isEqualTo(307);
            assertThat(redirect.body()).isEmpty();
            assertThat(redirect.headers().firstValue("Cache-Control")).contains("no-store");
            URI location = URI.create(redirect.headers().firstValue("Location").orElseThrow());
            assertThat(location.getScheme() + "://" + location.getAuthority())
                    .isEqualTo(clientsEndpoint().toString());
            assertThat(location.getRawPath())
                    .isEqualTo("/" + bucket.name() + "/a/blobs/example.test/acme/direct/1.0.0/"
                            + "terraform-provider-direct_1.0.0_linux_amd64.zip");
            assertThat(location.getRawQuery()).contains("X-Amz-Signature=").contains("X-Amz-Expires=300");

            HttpResponse<byte[]> followed = following(mirror)
                    .send(HttpRequest.newBuilder(mirror.url(archive)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(followed.statusCode()).isEqualTo(200);
            assertThat(followed.uri().getPort())
                    .as("read from the store")
                    .isEqualTo(bucket.server().endpoint().getPort());
            assertThat(followed.body()).isEqualTo(genuine);
            HttpResponse<byte[]> range = following(mirror)
                    .send(
                            HttpRequest.newBuilder(mirror.url(archive))
                                    .header("Range", "bytes=100-199")
                                    .build(),
                            HttpResponse.BodyHandlers.ofByteArray());
            assertThat(range.statusCode()).isEqualTo(206);
            assertThat(range.body()).isEqualTo(Arrays.copyOfRange(genuine, 100, 200));

            HttpResponse<byte[]> head = mirror.head(archive);
            assertThat(head.statusCode())
                    .as("answered by the mirror: the URL opens a GET only")
                    .isEqualTo(200);
            assertThat(head.headers().firstValue("Content-Length")).contains(Integer.toString(genuine.length));
            assertThat(head.headers().firstValue("X-Cache")).contains("HIT");
            assertThat(head.headers().firstValue("Location")).isEmpty();
            assertThat(head.headers().firstValue("ETag")).contains("\"" + release.sha256("linux_amd64") + "\"");
            HttpResponse<byte[]> notModified = mirror.send(HttpRequest.newBuilder(mirror.url(archive))
                    .header("If-None-Match", "\"" + release.sha256("linux_amd64") + "\"")
                    .build());
            assertThat(notModified.statusCode()).isEqualTo(304);

            assertThat(redirects(mirror)).as("the three GETs sent to the store").isEqualTo(3);
            assertThat(origin.archiveDownloads(release, "linux_amd64")).isEqualTo(1);
        }
    }

    @Test
    void withAccessControlAnUnsignedRequestIsRefusedNeverRedirected() throws Exception {
        String token = "redirect-token";
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-b"));
                MirrorFixture mirror = redirecting(tmp.resolve("cache-b"), origin, "b/")
                        .set("auth.tokens", List.of(MirrorAuth.hash(token)))
                        .start()) {
            FakeOrigin.Release release = origin.publish("acme", "guarded", "1.0.0", "linux_amd64");
            byte[] genuine = release.archives().get("linux_amd64");
            String base = "/providers/example.test/acme/guarded/";
            HttpResponse<byte[]> document = mirror.send(HttpRequest.newBuilder(mirror.url(base + "1.0.0.json"))
                    .header("Authorization", "Bearer " + token)
                    .build());
            assertThat(document.statusCode()).isEqualTo(200);
            String signed = URI.create(base)
                    .resolve(JSON.readTree(document.body())
                            .get("archives")
                            .get("linux_amd64")
                            .get("url")
                            .asText())
                    .toString();
            assertThat(mirror.get(signed).body()).as("cold, streamed").isEqualTo(genuine);
            String unsigned = signed.substring(0, signed.indexOf('?'));

            HttpResponse<byte[]> refused = mirror.get(unsigned);
            assertThat(refused.statusCode()).isEqualTo(403);
            assertThat(refused.headers().firstValue("Location")).isEmpty();
            assertThat(MirrorFixture.error(refused)).contains("archive URLs of this mirror are signed");
            String altered = signed.replaceFirst("expires=([0-9]+)", "expires=9$1");
            assertThat(mirror.get(altered).statusCode()).isEqualTo(403);
            assertThat(redirects(mirror)).isZero();

            HttpResponse<byte[]> allowed = mirror.get(signed);
            assertThat(allowed.statusCode()).isEqualTo(307);
            HttpResponse<byte[]> followed = following(mirror)
                    .send(HttpRequest.newBuilder(mirror.url(signed)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(followed.body()).isEqualTo(genuine);
        }
    }

    @Test
    void withTheBucketDownAnArchiveInTheLocalTierIsServedByTheMirrorItself() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-c"));
                MirrorFixture mirror =
                        redirecting(tmp.resolve("cache-c"), origin, "c/").start()) {
            FakeOrigin.Release release = origin.publish("acme", "outage", "1.0.0", "linux_amd64");
            String archive = "/providers/example.test/acme/outage/terraform-provider-outage_1.0.0_linux_amd64.zip";
            assertThat(mirror.get(archive).statusCode()).isEqualTo(200);
            assertThat(mirror.get(archive).statusCode()).isEqualTo(307);

            bucket.server().stop();
            try {
                HttpResponse<byte[]> local = mirror.get(archive);
                assertThat(local.statusCode()).isEqualTo(200);
                assertThat(local.headers().firstValue("X-Cache")).contains("HIT");
                assertThat(local.body()).isEqualTo(release.archives().get("linux_amd64"));
            } finally {
                bucket.server().start();
            }
            assertThat(mirror.get(archive).statusCode()).isEqualTo(307);
        }
    }

    @Test
    void moduleArchivesAreRedirectedOnceCommitted() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-d"));
                MirrorFixture mirror =
                        redirecting(tmp.resolve("cache-d"), origin, "d/").start()) {
            FakeModuleRegistry registry = FakeModuleRegistry.of(origin);
            byte[] module = ModuleArchives.tarGz(Map.of("main.tf", "output \"v\" {\n  value = \"redirected\"\n}\n"));
            registry.serveArchive("/archives/net.tar.gz", module);
            registry.publish("corp", "net", "aws", "1.0.0", "/archives/net.tar.gz");
            String archive = "/registry/example.test/modules.v1/corp/net/aws/1.0.0/module.tar.gz";
            assertThat(mirror.get("/registry/example.test/modules.v1/corp/net/aws/1.0.0/download")
                            .statusCode())
                    .isEqualTo(204);

            HttpResponse<byte[]> first = mirror.get(archive);
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).isEqualTo(module);
            HttpResponse<byte[]> again = mirror.get(archive);
            assertThat(again.statusCode()).isEqualTo(307);
            HttpResponse<byte[]> followed = following(mirror)
                    .send(HttpRequest.newBuilder(mirror.url(archive)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(followed.body()).isEqualTo(module);
            assertThat(mirror.head(archive).statusCode()).isEqualTo(200);
            assertThat(registry.archiveDownloads("/archives/net.tar.gz")).isEqualTo(1);
            assertThat(redirects(mirror)).isEqualTo(2);
        }
    }

    @Test
    void aPresignedUrlLivesAsLongAsConfigured() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-e"));
                MirrorFixture mirror = redirecting(tmp.resolve("cache-e"), origin, "e/")
                        .set("cache.s3.redirectUrlTtl", "90s")
                        .start()) {
            origin.publish("acme", "ttl", "1.0.0", "linux_amd64");
            String archive = "/providers/example.test/acme/ttl/terraform-provider-ttl_1.0.0_linux_amd64.zip";
            assertThat(mirror.get(archive).statusCode()).isEqualTo(200);
            HttpResponse<byte[]> redirect = mirror.get(archive);
            assertThat(redirect.headers().firstValue("Location").orElseThrow()).contains("X-Amz-Expires=90");
        }
    }
}
