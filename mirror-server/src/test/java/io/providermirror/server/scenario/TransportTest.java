package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.epoll.Epoll;
import io.netty.handler.ssl.OpenSsl;
import io.providermirror.server.app.MirrorApplication;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.FakeOriginExtension;
import io.providermirror.upstream.TrustedCertificates;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the listener does its I/O: epoll and OpenSSL where they load, the JDK's NIO and TLS when told not to
 * use them, and plain HTTP (archives sent with zero-copy file regions) behind a TLS-terminating load balancer.
 * Each serves the same bytes, cold and from the cache, whole and in ranges.
 */
final class TransportTest {

    @TempDir
    static Path tmp;

    @RegisterExtension
    static final FakeOriginExtension fixture = new FakeOriginExtension();

    private static FakeOrigin.Release release;

    @BeforeAll
    static void start() {
        release = fixture.origin().publish("acme", "wire", "1.0.0", FakeOrigin.Tamper.NONE, 3_000_000, "linux_amd64");
    }

    @Test
    void onLinuxTheNativeTransportAndOpenSslAreUsed() throws Exception {
        try (MirrorApplication mirror = MirrorApplication.start(
                MirrorFixture.builder(tmp.resolve("native"), fixture.origin()).config(), Clock.systemUTC())) {
            if (Epoll.isAvailable()) {
                assertThat(mirror.transport()).startsWith("epoll");
            }
            if (OpenSsl.isAvailable()) {
                assertThat(mirror.transport()).contains("TLS by BoringSSL");
            }
            assertThat(Epoll.isAvailable() || !System.getProperty("os.name").equals("Linux"))
                    .as("epoll loads on Linux: %s", Epoll.unavailabilityCause())
                    .isTrue();
            servesTheArchive(mirror, secureClient(mirror), "https");
        }
    }

    @Test
    void withoutTheNativeTransportTheJdkServesTheSame() throws Exception {
        try (MirrorApplication mirror = MirrorApplication.start(
                MirrorFixture.builder(tmp.resolve("jdk"), fixture.origin())
                        .set("server.nativeTransport", false)
                        .config(),
                Clock.systemUTC())) {
            assertThat(mirror.transport()).startsWith("Java NIO, TLS by the JDK");
            servesTheArchive(mirror, secureClient(mirror), "https");
        }
    }

    @Test
    void plainHttpServesArchivesFromTheCacheWithZeroCopy() throws Exception {
        try (MirrorApplication mirror = MirrorApplication.start(
                MirrorFixture.builder(tmp.resolve("plain"), fixture.origin())
                        .set("server.plainHttp", true)
                        .config(),
                Clock.systemUTC())) {
            assertThat(mirror.generatedCaFile()).isEmpty();
            servesTheArchive(
                    mirror,
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(),
                    "http");
        }
    }

    private static HttpClient secureClient(MirrorApplication mirror) throws Exception {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .sslContext(
                        TrustedCertificates.sslContext(mirror.generatedCaFile().orElseThrow()))
                .build();
    }

    /** Cold (followed while fetched), then from the cache, then ranges of it from the cache. */
    private static void servesTheArchive(MirrorApplication mirror, HttpClient client, String scheme) throws Exception {
        String base = scheme + "://localhost:" + mirror.port() + "/providers/example.test/acme/wire/";
        byte[] genuine = release.archives().get("linux_amd64");
        HttpResponse<String> document = client.send(
                HttpRequest.newBuilder(URI.create(base + "1.0.0.json"))
                        .timeout(Duration.ofSeconds(20))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(document.statusCode()).isEqualTo(200);
        URI archive = URI.create(base + release.fileName("linux_amd64"));

        HttpResponse<byte[]> cold = client.send(
                HttpRequest.newBuilder(archive).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(cold.headers().firstValue("X-Cache")).hasValue("MISS");
        assertThat(cold.body()).isEqualTo(genuine);

        HttpResponse<byte[]> cached = client.send(
                HttpRequest.newBuilder(archive).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(cached.headers().firstValue("X-Cache")).hasValue("HIT");
        assertThat(cached.body()).isEqualTo(genuine);

        HttpResponse<byte[]> range = client.send(
                HttpRequest.newBuilder(archive)
                        .header("Range", "bytes=1000000-1999999")
                        .timeout(Duration.ofSeconds(20))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(range.statusCode()).isEqualTo(206);
        assertThat(range.body()).isEqualTo(Arrays.copyOfRange(genuine, 1_000_000, 2_000_000));

        // Short enough to go out as one full response over TLS (one read, from an odd offset), and one byte longer
        // than that, chunked.
        for (int length : new int[] {200_000, 256 * 1024, 256 * 1024 + 1}) {
            HttpResponse<byte[]> part = client.send(
                    HttpRequest.newBuilder(archive)
                            .header("Range", "bytes=1000001-" + (1_000_001 + length - 1))
                            .timeout(Duration.ofSeconds(20))
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(part.statusCode()).isEqualTo(206);
            assertThat(part.headers().firstValueAsLong("Content-Length")).hasValue(length);
            assertThat(part.body()).isEqualTo(Arrays.copyOfRange(genuine, 1_000_001, 1_000_001 + length));
        }
    }
}
