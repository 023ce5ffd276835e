package io.providermirror.upstream;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.upstream.verify.SignaturePolicy;
import io.providermirror.upstream.verify.VerifiedPackage;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A host's registry as an {@link Origin}: renewing an expired download URL under the origin's spelling. */
final class RegistryOriginTest {

    private static final String PLATFORM = "linux_amd64";

    @TempDir
    static Path tmp;

    private static FakeOrigin origin;
    private static RegistryOrigin registry;

    @BeforeAll
    static void start() {
        origin = FakeOrigin.start(tmp);
        OriginHttpClient http = OriginClients.http(origin.caCertificate());
        registry = new RegistryOrigin(
                "example.test",
                new RegistryClient(http, OriginClients.LANES),
                new ServiceBases(
                        new ServiceDiscovery(http, Map.of("example.test", origin.discoveryUrl())),
                        DiscoveryMemory.NONE,
                        Duration.ofMinutes(1)));
    }

    @AfterAll
    static void stop() {
        origin.close();
    }

    /** Publishes {@code type} as version {@code 1.0}, verifies it, and lets its download URL expire. */
    private static VerifiedPackage publishedThenExpired(String type) {
        FakeOrigin.Release release = origin.publish("acme", type, "1.0", PLATFORM);
        ProviderAddress address = new ProviderAddress("example.test", "acme", type);
        ListedVersion listed = registry.versions(address).list().find(version()).orElseThrow();
        VerifiedPackage pkg = VerifyNow.release(
                        address,
                        version(),
                        registry.release(address, listed),
                        SignaturePolicy.defaultFor("example.test"))
                .find(Platform.parse(PLATFORM))
                .orElseThrow();
        origin.wireMock()
                .stubFor(get(urlEqualTo(release.archivePath(PLATFORM)))
                        .willReturn(aResponse().withStatus(410)));
        URI renewed = origin.discoveryUrl().resolve("/renewed/" + type + ".zip");
        origin.wireMock()
                .stubFor(get(urlEqualTo(renewed.getPath()))
                        .willReturn(aResponse().withBody(release.archives().get(PLATFORM))));
        origin.pointArchiveAt(release, PLATFORM, renewed);
        return pkg;
    }

    private static ProviderVersion version() {
        return ProviderVersion.parse("1.0").orElseThrow();
    }

    private static byte[] open(String type, VerifiedPackage pkg, Optional<String> spelling) throws Exception {
        try (OriginHttpClient.ArchiveStream stream = registry.openArchive(
                new ProviderAddress("example.test", "acme", type), version(), () -> spelling, pkg, () -> {})) {
            return stream.body().readAllBytes();
        }
    }

    @Test
    void anExpiredDownloadUrlIsRenewedUnderTheSpellingTheMirrorKnows() throws Exception {
        VerifiedPackage pkg = publishedThenExpired("known");
        origin.wireMock().resetRequests();

        assertThat(open("known", pkg, Optional.of("1.0"))).isNotEmpty();
        assertThat(origin.wireMock()
                        .countRequestsMatching(
                                getRequestedFor(urlEqualTo("/v1/providers/acme/known/1.0/download/linux/amd64"))
                                        .build())
                        .getCount())
                .isEqualTo(1);
        assertThat(origin.requestsMatching(".*/versions")).isZero();
    }

    @Test
    void anExpiredDownloadUrlIsRenewedUnderTheOriginsSpellingItListsWhenTheMirrorKnowsNone() throws Exception {
        VerifiedPackage pkg = publishedThenExpired("unknown");

        assertThat(open("unknown", pkg, Optional.empty())).isNotEmpty();
        assertThat(origin.wireMock()
                        .countRequestsMatching(
                                getRequestedFor(urlEqualTo("/v1/providers/acme/unknown/1.0/download/linux/amd64"))
                                        .build())
                        .getCount())
                .isEqualTo(2);
    }

    @Test
    void aDownloadUrlThatWorksIsOpenedWithoutLookingUpTheOriginsSpelling() throws Exception {
        FakeOrigin.Release release = origin.publish("acme", "fresh", "1.0", PLATFORM);
        ProviderAddress address = new ProviderAddress("example.test", "acme", "fresh");
        ListedVersion listed = registry.versions(address).list().find(version()).orElseThrow();
        VerifiedPackage pkg = VerifyNow.release(
                        address,
                        version(),
                        registry.release(address, listed),
                        SignaturePolicy.defaultFor("example.test"))
                .find(Platform.parse(PLATFORM))
                .orElseThrow();

        try (OriginHttpClient.ArchiveStream stream = registry.openArchive(
                address,
                version(),
                () -> {
                    throw new AssertionError("the spelling is looked up only to renew a download URL");
                },
                pkg,
                () -> {})) {
            assertThat(stream.body().readAllBytes())
                    .isEqualTo(release.archives().get(PLATFORM));
        }
    }
}
