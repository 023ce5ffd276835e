package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.Tinyproxy;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.OriginProxy;
import io.providermirror.upstream.OriginTrust;
import io.providermirror.upstream.RetryPolicy;
import io.providermirror.upstream.TrustedCertificates;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Origin traffic through a real forward proxy (tinyproxy, with basic authentication), as the packaged mirror
 * runs it: configured, or from HTTPS_PROXY; NO_PROXY hosts go directly; bad credentials give a clear error.
 */
final class ProxyIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private Path config(FakeOrigin origin, Path cache, String proxySection) throws Exception {
        return Files.writeString(tmp.resolve(cache.getFileName() + ".yaml"), """
                server: {host: 127.0.0.1, port: 0}
                cache: {directory: '%s'}
                upstream:
                  trustedCertificates: '%s'
                  hosts: {example.test: {discoveryUrl: '%s'}}
                  discoverAtStartup: false   # the tunnels counted are those the tests' own requests open
                %s
                """.formatted(
                        cache, origin.caCertificate(), origin.discoveryUrl(), proxySection));
    }

    private static HttpResponse<byte[]> get(PackagedMirror mirror, Path cache, String path) throws Exception {
        return HttpClient.newBuilder()
                .sslContext(TrustedCertificates.sslContext(MirrorFixtures.generatedCa(cache)))
                .build()
                .send(
                        HttpRequest.newBuilder(URI.create("https://localhost:" + mirror.port() + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void originTrafficGoesThroughTheConfiguredProxyWithCredentials() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                Tinyproxy proxy = Tinyproxy.start(tmp.resolve("proxy"), "mirror", "s3cret")) {
            FakeOrigin.Release release =
                    origin.publish("acme", "proxied", "1.0.0", FakeOrigin.Tamper.NONE, 20_000, "linux_amd64");
            String originAuthority = "127.0.0.1:" + origin.discoveryUrl().getPort();
            Path password = Files.writeString(tmp.resolve("proxy-password"), "s3cret\n");
            Path cache = tmp.resolve("cache");
            String proxySection = """
                  proxy:
                    url: http://127.0.0.1:%d
                    username: mirror
                    passwordFile: '%s'
                """.formatted(proxy.port(), password);
            try (PackagedMirror mirror =
                    PackagedMirror.start(config(origin, cache, proxySection), tmp.resolve("mirror.log"), Map.of())) {
                String base = "/providers/example.test/acme/proxied/";
                assertThat(get(mirror, cache, base + "index.json").statusCode()).isEqualTo(200);
                assertThat(get(mirror, cache, base + "1.0.0.json").statusCode()).isEqualTo(200);
                long documentTunnels = proxy.tunnelsTo(originAuthority);
                HttpResponse<byte[]> archive =
                        get(mirror, cache, base + "terraform-provider-proxied_1.0.0_linux_amd64.zip");
                assertThat(archive.body()).isEqualTo(release.archives().get("linux_amd64"));
                // Archives come through a client of their own (Netty's): it must take the tunnel too.
                await().atMost(Duration.ofSeconds(10))
                        .untilAsserted(() -> assertThat(proxy.tunnelsTo(originAuthority))
                                .as("the archive came through a tunnel of its own")
                                .isGreaterThan(documentTunnels));
            }
            assertThat(proxy.tunnelsTo(originAuthority))
                    .as("the origin was reached through the proxy")
                    .isPositive();
            assertThat(Files.readString(tmp.resolve("mirror.log")))
                    .contains("origin traffic goes through the proxy http://127.0.0.1:" + proxy.port() + " as mirror")
                    .doesNotContain("s3cret");
        }
    }

    @Test
    void wrongCredentialsFromTheEnvironmentGiveAClearError() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                Tinyproxy proxy = Tinyproxy.start(tmp.resolve("proxy"), "mirror", "s3cret")) {
            origin.publish("acme", "refused", "1.0.0", "linux_amd64");
            Path cache = tmp.resolve("cache");
            try (PackagedMirror mirror = PackagedMirror.start(
                    config(origin, cache, ""),
                    tmp.resolve("mirror.log"),
                    Map.of("HTTPS_PROXY", "http://mirror:wrong@127.0.0.1:" + proxy.port()))) {
                HttpResponse<byte[]> response = get(mirror, cache, "/providers/example.test/acme/refused/index.json");
                assertThat(response.statusCode()).isEqualTo(502);
                assertThat(JSON.readTree(response.body()).get("errors").get(0).asText())
                        .contains("the proxy http://127.0.0.1:" + proxy.port() + " refused the mirror's credentials")
                        .doesNotContain("gave up after");
            }
        }
    }

    @Test
    void anArchiveThroughTheProxyWithWrongCredentialsGivesTheSameClearErrorAndIsNotRetried() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                Tinyproxy proxy = Tinyproxy.start(tmp.resolve("proxy"), "mirror", "s3cret")) {
            FakeOrigin.Release release = origin.publish("acme", "refused", "1.0.0", "linux_amd64");
            URI archive = origin.discoveryUrl().resolve(release.archivePath("linux_amd64"));
            String originAuthority = "127.0.0.1:" + origin.discoveryUrl().getPort();
            try (OriginHttpClient right = client(origin, proxy, "s3cret");
                    OriginHttpClient wrong = client(origin, proxy, "wrong")) {
                try (OriginHttpClient.ArchiveStream stream =
                        right.openArchive("example.test", archive, "the archive")) {
                    assertThat(stream.body().readAllBytes())
                            .isEqualTo(release.archives().get("linux_amd64"));
                }
                await().atMost(Duration.ofSeconds(10))
                        .untilAsserted(() ->
                                assertThat(proxy.tunnelsTo(originAuthority)).isEqualTo(1));

                assertThatThrownBy(() -> wrong.openArchive(
                                "example.test", archive, "the archive of example.test/acme/refused 1.0.0"))
                        .isInstanceOf(OriginException.class)
                        .hasMessageContaining("the archive of example.test/acme/refused 1.0.0")
                        .hasMessageContaining(
                                "the proxy http://127.0.0.1:" + proxy.port() + " refused the mirror's credentials")
                        .hasMessageNotContaining("gave up after")
                        .hasMessageNotContaining("wrong");
            }
            assertThat(origin.archiveDownloads(release, "linux_amd64"))
                    .as("only the request with the right credentials reached the origin")
                    .isEqualTo(1);
        }
    }

    private static OriginHttpClient client(FakeOrigin origin, Tinyproxy proxy, String password) throws Exception {
        return new OriginHttpClient(new OriginHttpClient.Settings(
                Duration.ofSeconds(5),
                Duration.ofSeconds(20),
                Duration.ofSeconds(10),
                OriginTrust.of(origin.caCertificate()),
                "provider-mirror-test",
                3,
                1024 * 1024,
                new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(50)),
                false,
                (forOrigin, host, port) -> host.equals("127.0.0.1"),
                OriginProxy.of(
                        URI.create("http://127.0.0.1:" + proxy.port()), List.of(), "mirror", password.toCharArray())));
    }

    @Test
    void noProxyHostsGoDirectly() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                Tinyproxy proxy = Tinyproxy.start(tmp.resolve("proxy"), "mirror", "s3cret")) {
            origin.publish("acme", "direct", "1.0.0", "linux_amd64");
            Path cache = tmp.resolve("cache");
            try (PackagedMirror mirror = PackagedMirror.start(
                    config(origin, cache, ""),
                    tmp.resolve("mirror.log"),
                    Map.of(
                            "HTTPS_PROXY",
                            "http://mirror:s3cret@127.0.0.1:" + proxy.port(),
                            "NO_PROXY",
                            "localhost,127.0.0.1"))) {
                assertThat(get(mirror, cache, "/providers/example.test/acme/direct/1.0.0.json")
                                .statusCode())
                        .isEqualTo(200);
            }
            assertThat(proxy.tunnelsTo("127.0.0.1:" + origin.discoveryUrl().getPort()))
                    .isZero();
        }
    }
}
