package io.providermirror.server;

import io.providermirror.server.config.CacheConfig;
import io.providermirror.server.config.HostConfig;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.config.ServerConfig;
import io.providermirror.server.config.UpstreamConfig;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.upstream.TrustedCertificates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * A running mirror on a random port whose {@code example.test} origin is a {@link FakeOrigin}, and an HTTPS
 * client that trusts the mirror's generated CA.
 */
final class MirrorFixture implements AutoCloseable {

    static final String HOST = "example.test";

    final Path cacheDirectory;
    final MirrorApplication mirror;
    final HttpClient client;

    private MirrorFixture(Path cacheDirectory, MirrorApplication mirror, HttpClient client) {
        this.cacheDirectory = cacheDirectory;
        this.mirror = mirror;
        this.client = client;
    }

    static MirrorFixture start(Path cacheDirectory, FakeOrigin origin, Duration indexTtl) {
        return start(cacheDirectory, origin.caCertificate(), origin.discoveryUrl(), indexTtl);
    }

    static MirrorFixture start(Path cacheDirectory, Path originCa, URI discoveryUrl, Duration indexTtl) {
        return start(cacheDirectory, originCa, discoveryUrl, indexTtl, false);
    }

    static MirrorFixture start(Path cacheDirectory, Path originCa, URI discoveryUrl, Duration indexTtl, boolean offline) {
        MirrorConfig config = new MirrorConfig(
                new ServerConfig("127.0.0.1", 0, null, null, null),
                new CacheConfig(cacheDirectory, indexTtl, null),
                new UpstreamConfig(originCa, Map.of(HOST, new HostConfig(discoveryUrl)), Duration.ofSeconds(2),
                        Duration.ofSeconds(3), Duration.ofSeconds(2), null, null, offline));
        try {
            MirrorApplication mirror = MirrorApplication.start(config, Clock.systemUTC());
            HttpClient client = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .sslContext(TrustedCertificates.sslContext(mirror.generatedCaFile().orElseThrow()))
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
            return new MirrorFixture(cacheDirectory, mirror, client);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    URI url(String path) {
        return URI.create("https://localhost:" + mirror.port() + path);
    }

    /** The mirror's base URL for the test origin's providers. */
    String providerPath(String namespace, String type) {
        return "/providers/" + HOST + "/" + namespace + "/" + type + "/";
    }

    HttpResponse<byte[]> get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(url(path)).timeout(Duration.ofSeconds(20)).GET().build());
    }

    HttpResponse<byte[]> head(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(url(path)).timeout(Duration.ofSeconds(20))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build());
    }

    HttpResponse<byte[]> send(HttpRequest request) throws IOException, InterruptedException {
        return client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    @Override
    public void close() {
        mirror.close();
    }
}
