package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.cache.BlobStore;
import io.providermirror.server.app.MirrorApplication;
import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.upstream.TrustedCertificates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A running mirror on a random port whose {@code example.test} origin is a {@link FakeOrigin}, and an HTTPS
 * client that trusts the mirror's generated CA. Its configuration is built as YAML and read by the real
 * {@link ConfigLoader}, so tests configure the mirror exactly as users do.
 */
final class MirrorFixture implements AutoCloseable {

    static final String HOST = "example.test";
    private static final ObjectMapper JSON = new ObjectMapper();

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

    static MirrorFixture start(
            Path cacheDirectory, Path originCa, URI discoveryUrl, Duration indexTtl, boolean offline) {
        return builder(cacheDirectory, originCa, discoveryUrl)
                .set("cache.indexTtl", indexTtl.toMillis() + "ms")
                .set("upstream.offline", offline)
                .start();
    }

    /** The first message of a JSON error answer ({@code {"errors":[...]}}), checked to be one. */
    static String error(HttpResponse<byte[]> response) throws IOException {
        JsonNode errors = JSON.readTree(response.body()).get("errors");
        org.assertj.core.api.Assertions.assertThat(errors)
                .as("a JSON error answer")
                .isNotNull();
        org.assertj.core.api.Assertions.assertThat(errors.isArray()).isTrue();
        return errors.get(0).asText();
    }

    /** A mirror for {@code origin} with the fixture's defaults, to be adjusted with {@link Builder#set}. */
    static Builder builder(Path cacheDirectory, FakeOrigin origin) {
        return builder(cacheDirectory, origin.caCertificate(), origin.discoveryUrl());
    }

    static Builder builder(Path cacheDirectory, Path originCa, URI discoveryUrl) {
        // The generated certificates and the log's key are written beside the cache (LogKeyFile,
        // GeneratedTlsConfig): a cache that is a test's temporary directory itself would leave them in /tmp.
        assertThat(cacheDirectory.toAbsolutePath().getParent())
                .as("a fixture's cache is below the test's temporary directory, not that directory itself")
                .isNotEqualTo(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath());
        return new Builder(cacheDirectory)
                .set("server.host", "127.0.0.1")
                .set("server.port", 0)
                .set("cache.directory", cacheDirectory.toString())
                .set("upstream.trustedCertificates", originCa.toString())
                .set("upstream.hosts", Map.of(HOST, Map.of("discoveryUrl", discoveryUrl.toString())))
                // Generous deadlines: a test that is not about them must not see a timeout because the machine is
                // busy (a loaded 2-core machine has taken 3.5 s for one answer of a loopback origin). A test about
                // a deadline sets a short one and an origin that stalls far longer.
                .set("upstream.connectTimeout", "60s")
                .set("upstream.requestTimeout", "60s")
                .set("upstream.readTimeout", "60s")
                .set("server.metadataTimeout", "60s")
                // Tests of an origin that recovers ask again at once; RememberedFailuresTest sets what it is about.
                .set("upstream.verificationFailureTtl", "0s")
                // No discovery request after start-up that a test counting the origin's requests did not make;
                // OriginWarmUpTest turns it on.
                .set("upstream.discoverAtStartup", false)
                // Nor a second mirror's work beside each test's (StartupRehearsalTest is about it).
                .set("upstream.rehearseAtStartup", false);
    }

    /** Configuration keys in their dotted form, as the README documents them. */
    static final class Builder {
        private final Path cacheDirectory;
        private final ObjectNode tree = JSON.createObjectNode();
        private Clock clock = Clock.systemUTC();

        private Builder(Path cacheDirectory) {
            this.cacheDirectory = cacheDirectory;
        }

        /** Sets a dotted key; a dot inside a part (a host name) is written {@code \\.}, e.g. {@code upstream.hosts.example\\.test.token}. */
        Builder set(String key, Object value) {
            String[] segments = key.split("(?<!\\\\)\\.");
            for (int i = 0; i < segments.length; i++) {
                segments[i] = segments[i].replace("\\.", ".");
            }
            ObjectNode node = tree;
            for (int i = 0; i < segments.length - 1; i++) {
                JsonNode child = node.get(segments[i]);
                node = child instanceof ObjectNode object ? object : node.putObject(segments[i]);
            }
            node.set(segments[segments.length - 1], JSON.valueToTree(value));
            return this;
        }

        /** With the management listener (metrics, health, readiness) on a free port of 127.0.0.1. */
        Builder withManagement() {
            return set("management.host", "127.0.0.1").set("management.port", 0);
        }

        /** The mirror's clock (the real one unless a test moves time on). */
        Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** The configuration as YAML (JSON is YAML), for a {@code --config} file. */
        String yaml() {
            return tree.toString();
        }

        MirrorConfig config() {
            try {
                return new ConfigLoader(Map.of()).loadText(tree.toString());
            } catch (ConfigException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        }

        MirrorFixture start() {
            return start(UnaryOperator.identity());
        }

        /** Starts the mirror with its archive store seen through {@code storeView} (a fault-injecting one, say). */
        MirrorFixture start(UnaryOperator<BlobStore> storeView) {
            try {
                MirrorApplication mirror = MirrorApplication.start(
                        config(), clock, false, storeView, io.providermirror.server.operator.OperatorService::new);
                HttpClient client = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .sslContext(TrustedCertificates.sslContext(
                                mirror.generatedCaFile().orElseThrow()))
                        .connectTimeout(Duration.ofSeconds(30))
                        .build();
                return new MirrorFixture(cacheDirectory, mirror, client);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
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
        return send(HttpRequest.newBuilder(url(path))
                .timeout(Duration.ofSeconds(90))
                .GET()
                .build());
    }

    HttpResponse<byte[]> head(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(url(path))
                .timeout(Duration.ofSeconds(90))
                .method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build());
    }

    /** A GET of {@code path} (such as {@code /metrics} or {@code /readyz}) on the management listener. */
    HttpResponse<String> management(String path) throws IOException, InterruptedException {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                                        + mirror.managementPort().orElseThrow() + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    /** Waits until the mirror's transparency log serves an entry of {@code kind} mentioning {@code text}. */
    void awaitDecision(String kind, String text) {
        io.providermirror.server.tlog.LogSource served = new io.providermirror.server.tlog.LogSource() {
            @Override
            public java.util.Optional<byte[]> checkpoint() throws java.io.IOException {
                return read("/log/checkpoint");
            }

            @Override
            public java.util.Optional<byte[]> tile(io.providermirror.server.tlog.TileName name)
                    throws java.io.IOException {
                return read("/log/" + name.path());
            }

            private java.util.Optional<byte[]> read(String path) throws java.io.IOException {
                try {
                    HttpResponse<byte[]> response = get(path);
                    return response.statusCode() == 404
                            ? java.util.Optional.empty()
                            : java.util.Optional.of(response.body());
                } catch (InterruptedException e) {
                    throw new java.io.IOException(e);
                }
            }
        };
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            mirror.core().log().decisions().flush(Duration.ofSeconds(30));
            var audited = io.providermirror.server.tlog.LogAudit.audit(
                    served, mirror.core().log().log().key().verifier());
            return audited.entries().stream()
                    .map(entry -> new String(entry, StandardCharsets.UTF_8))
                    .anyMatch(entry -> entry.contains("\"" + kind + "\"") && entry.contains(text));
        });
    }

    HttpResponse<byte[]> send(HttpRequest request) throws IOException, InterruptedException {
        return client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    @Override
    public void close() {
        mirror.close();
    }
}
