package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.testkit.FakeOrigin;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trust towards origins is made by the first request that needs it, not with the client (start-up), and that
 * first request reaches an origin whose CA only the configured bundle holds; the bundle itself is read, and a bad
 * one refused, at once.
 */
final class OriginTrustTest {

    @TempDir
    static Path tmp;

    private static FakeOrigin origin;

    @BeforeAll
    static void start() {
        origin = FakeOrigin.start(tmp.resolve("origin"));
    }

    @AfterAll
    static void stop() {
        origin.close();
    }

    @Test
    void theFirstDocumentMakesTheTrustAndReachesAnOriginThatOnlyTheBundleVouchesFor() throws IOException {
        OriginTrust trust = OriginTrust.of(origin.caCertificate());
        try (OriginHttpClient client = OriginClients.trusting(trust, OriginClients.GENEROUS)) {
            assertThat(trust.isMade()).as("made when the client is").isFalse();

            OriginHttpClient.Document discovery = client.getDocument(
                    "example.test",
                    origin.discoveryUrl().resolve(".well-known/terraform.json"),
                    "the discovery document of example.test",
                    OriginObserver.Operation.DISCOVERY);

            assertThat(discovery.status()).isEqualTo(200);
            assertThat(new String(discovery.body(), java.nio.charset.StandardCharsets.UTF_8))
                    .contains("providers.v1");
            assertThat(trust.isMade()).isTrue();
        }
    }

    @Test
    void theFirstArchiveMakesTheTrustAndReachesThatOriginToo() throws IOException {
        FakeOrigin.Release release = origin.publish("acme", "lazy", "1.0.0", "linux_amd64");
        OriginTrust trust = OriginTrust.of(origin.caCertificate());
        try (OriginHttpClient client = OriginClients.trusting(trust, OriginClients.GENEROUS)) {
            assertThat(trust.isMade()).isFalse();
            URI archive = origin.discoveryUrl()
                    .resolve(release.archivePath("linux_amd64").substring(1));

            try (OriginHttpClient.ArchiveStream stream = client.openArchive("example.test", archive, "the archive")) {
                assertThat(stream.body().readAllBytes())
                        .isEqualTo(release.archives().get("linux_amd64"));
            }
            assertThat(trust.isMade()).isTrue();
        }
    }

    @Test
    void withoutTheBundleTheSameOriginIsRefusedOnTheFirstRequest() throws IOException {
        try (OriginHttpClient client = OriginClients.trusting(OriginTrust.of(null), OriginClients.GENEROUS)) {
            assertThatThrownBy(() -> client.getDocument(
                            "example.test",
                            origin.discoveryUrl().resolve(".well-known/terraform.json"),
                            "the discovery document of example.test",
                            OriginObserver.Operation.DISCOVERY))
                    .isInstanceOf(OriginException.class)
                    .hasMessageContaining("TLS");
        }
    }

    @Test
    void aBundleWithoutCertificatesIsRefusedAtOnceNamingItsPath() throws IOException {
        Path text = Files.writeString(tmp.resolve("notes.pem"), "our CA is on the wiki\n");
        Path keyOnly = Files.writeString(
                tmp.resolve("key.pem"), "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n");

        assertThatThrownBy(() -> OriginTrust.of(text))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith(text.toString());
        assertThatThrownBy(() -> OriginTrust.of(keyOnly))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith(keyOnly.toString());
    }
}
