package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.server.app.MirrorApplication;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.testkit.TestCertificates;
import io.providermirror.upstream.TrustedCertificates;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class ConfiguredTlsTest {

    @TempDir
    Path tmp;

    @Test
    void aConfiguredCertificateChainIsPresentedAndNothingIsGenerated() throws Exception {
        TestCertificates certificates = TestCertificates.create(tmp.resolve("pki"), "corp");
        MirrorConfig config = new ConfigLoader(Map.of()).loadText("""
                server: {host: 127.0.0.1, port: 0, tls: {certificate: '%s', privateKey: '%s'}}
                cache: {directory: '%s'}
                """.formatted(
                        certificates.serverCertificatePem(), certificates.serverKeyPem(), tmp.resolve("cache")));
        try (MirrorApplication mirror = MirrorApplication.start(config, Clock.systemUTC())) {
            HttpClient client = HttpClient.newBuilder()
                    .sslContext(TrustedCertificates.sslContext(certificates.caPem()))
                    .build();
            HttpResponse<String> home = client.send(
                    HttpRequest.newBuilder(URI.create("https://localhost:" + mirror.port() + "/"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(home.statusCode()).isEqualTo(200);
            assertThat(home.body()).as("no CA of its own to trust").doesNotContain("/ca.pem");
            HttpResponse<String> ca = client.send(
                    HttpRequest.newBuilder(URI.create("https://localhost:" + mirror.port() + "/ca.pem"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(ca.statusCode()).isEqualTo(404);
            assertThat(ca.body()).startsWith("{\"errors\":[").contains("server.tls");
            assertThat(mirror.generatedCaFile()).isEmpty();
            assertThat(Files.exists(tmp.resolve("cache/tls"))).isFalse();
            assertThat(Files.exists(
                            MirrorFixtures.generatedCa(tmp.resolve("cache")).getParent()))
                    .isFalse();
        }
    }
}
