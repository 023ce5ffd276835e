package io.providermirror.upstream;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.testkit.FakeOrigin;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A host's module registry as a {@link ModuleOrigin}: its token goes with an archive only to its own authority. */
final class RegistryModuleOriginTest {

    private static final ModuleAddress ADDRESS = ModuleAddress.parse("example.test/acme/net/aws");
    private static final ProviderVersion VERSION =
            ProviderVersion.parse("1.0.0").orElseThrow();
    private static final byte[] ARCHIVE = {1, 2, 3};

    @TempDir
    static Path tmp;

    private static FakeOrigin origin;
    private static FakeOrigin elsewhere;
    private static ModuleOrigin modules;

    @BeforeAll
    static void start() {
        origin = FakeOrigin.start(tmp.resolve("origin"));
        elsewhere = FakeOrigin.start(origin.certificates());
        OriginHttpClient http = OriginClients.http(origin.caCertificate());
        modules = new RegistryModuleOrigin(
                "example.test",
                new ModuleRegistryClient(http, OriginCredentials.of(Map.of("example.test", "tok"))),
                new ServiceBases(
                        new ServiceDiscovery(http, Map.of("example.test", origin.discoveryUrl())),
                        DiscoveryMemory.NONE,
                        Duration.ofMinutes(1)));
        for (FakeOrigin server : new FakeOrigin[] {origin, elsewhere}) {
            server.wireMock()
                    .stubFor(get(urlEqualTo("/files/net.tar.gz"))
                            .willReturn(aResponse().withBody(ARCHIVE)));
        }
    }

    @AfterAll
    static void stop() {
        elsewhere.close();
        origin.close();
    }

    private static byte[] read(FakeOrigin server) throws IOException {
        ModuleSource source = ModuleSource.parse(
                server.discoveryUrl().resolve("/files/net.tar.gz").toString());
        try (OriginHttpClient.ArchiveStream stream = modules.openArchive(ADDRESS, VERSION, source);
                InputStream body = stream.body()) {
            return body.readAllBytes();
        }
    }

    @Test
    void anArchiveOnTheRegistrysOwnAuthorityGetsTheHostsToken() throws IOException {
        assertThat(read(origin)).isEqualTo(ARCHIVE);
        origin.wireMock()
                .verify(getRequestedFor(urlEqualTo("/files/net.tar.gz"))
                        .withHeader("Authorization", equalTo("Bearer tok")));
    }

    @Test
    void anArchiveOnAnotherAuthorityGetsNoToken() throws IOException {
        assertThat(read(elsewhere)).isEqualTo(ARCHIVE);
        elsewhere
                .wireMock()
                .verify(getRequestedFor(urlEqualTo("/files/net.tar.gz")).withHeader("Authorization", absent()));
    }
}
