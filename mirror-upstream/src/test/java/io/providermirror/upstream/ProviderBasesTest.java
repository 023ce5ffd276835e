package io.providermirror.upstream;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.stubFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.github.tomakehurst.wiremock.client.WireMock;
import com.github.tomakehurst.wiremock.junit5.WireMockRuntimeInfo;
import com.github.tomakehurst.wiremock.junit5.WireMockTest;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Each host's registry URL: discovered once, kept fresh for a while, and remembered for when discovery fails. */
@WireMockTest
final class ProviderBasesTest {

    private static final String HOST = "example.test";

    /** A {@link DiscoveryMemory} in a map. */
    private static final class MapMemory implements DiscoveryMemory {
        final Map<String, URI> kept = new ConcurrentHashMap<>();

        @Override
        public Optional<URI> read(String hostname) {
            return Optional.ofNullable(kept.get(hostname));
        }

        @Override
        public void write(String hostname, URI providersBase) {
            kept.put(hostname, providersBase);
        }
    }

    private final MapMemory memory = new MapMemory();

    private ProviderBases bases(WireMockRuntimeInfo wm, Duration freshness) {
        return new ProviderBases(
                new ServiceDiscovery(OriginClients.http(null), Map.of(HOST, URI.create(wm.getHttpBaseUrl() + "/"))),
                memory,
                freshness);
    }

    private static void discoveryAnswers(String body) {
        stubFor(get(urlEqualTo("/.well-known/terraform.json"))
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/json")
                        .withBody(body)));
    }

    private static int discoveries() {
        return WireMock.findAll(getRequestedFor(urlEqualTo("/.well-known/terraform.json")))
                .size();
    }

    @Test
    void aDiscoveredUrlIsRememberedAndNotAskedForAgainWhileFresh(WireMockRuntimeInfo wm) {
        discoveryAnswers("{\"providers.v1\":\"/v1/providers/\"}");
        ProviderBases bases = bases(wm, Duration.ofMinutes(15));

        URI base = bases.providersBase(HOST);
        assertThat(bases.providersBase(HOST)).isEqualTo(base);

        assertThat(base).isEqualTo(URI.create(wm.getHttpBaseUrl() + "/v1/providers/"));
        assertThat(discoveries()).isEqualTo(1);
        assertThat(memory.kept).containsEntry(HOST, base);
    }

    @Test
    void aFailingDiscoveryFallsBackToTheLastKnownUrl(WireMockRuntimeInfo wm) {
        memory.kept.put(HOST, URI.create("https://registry.example.test/v1/providers/"));
        discoveryAnswers("not json");

        assertThat(bases(wm, Duration.ofMinutes(15)).providersBase(HOST))
                .isEqualTo(URI.create("https://registry.example.test/v1/providers/"));
    }

    @Test
    void aHostThatNoLongerOffersARegistryIsNotServedFromTheLastKnownUrl(WireMockRuntimeInfo wm) {
        memory.kept.put(HOST, URI.create("https://registry.example.test/v1/providers/"));
        discoveryAnswers("{\"modules.v1\":\"/v1/modules/\"}");

        assertThatThrownBy(() -> bases(wm, Duration.ofMinutes(15)).providersBase(HOST))
                .isInstanceOfSatisfying(
                        OriginException.class, e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.NOT_FOUND));
    }

    @Test
    void aFailingDiscoveryWithNothingRememberedFails(WireMockRuntimeInfo wm) {
        discoveryAnswers("not json");

        assertThatThrownBy(() -> bases(wm, Duration.ofMinutes(15)).providersBase(HOST))
                .isInstanceOf(OriginException.class)
                .hasMessageContaining("not valid JSON");
    }

    @Test
    void aSlowDiscoveryOfOneHostDoesNotHoldUpAHostWhoseUrlIsKnown(WireMockRuntimeInfo wm) throws Exception {
        // A host that falls in the same bin of the map as HOST: a lock held while discovering would hold up both.
        String slow = sameBinAs(HOST);
        discoveryAnswers("{\"providers.v1\":\"/v1/providers/\"}");
        stubFor(get(urlEqualTo("/slow/.well-known/terraform.json"))
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"providers.v1\":\"/v1/providers/\"}")
                        .withFixedDelay(6_000)));
        ProviderBases bases = new ProviderBases(
                new ServiceDiscovery(
                        OriginClients.http(null),
                        Map.of(
                                HOST,
                                URI.create(wm.getHttpBaseUrl() + "/"),
                                slow,
                                URI.create(wm.getHttpBaseUrl() + "/slow/"))),
                memory,
                Duration.ofMinutes(15));
        URI known = bases.providersBase(HOST);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<URI> slowBase = pool.submit(() -> bases.providersBase(slow));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> WireMock.findAll(getRequestedFor(urlEqualTo("/slow/.well-known/terraform.json")))
                                    .size()
                            == 1);

            // While the slow host's discovery is under way, the known host answers at once.
            assertThat(assertTimeoutPreemptively(Duration.ofSeconds(3), () -> bases.providersBase(HOST)))
                    .isEqualTo(known);
            assertThat(slowBase.isDone()).isFalse();
            assertThat(slowBase.get(15, TimeUnit.SECONDS))
                    .isEqualTo(URI.create(wm.getHttpBaseUrl() + "/v1/providers/"));
        } finally {
            pool.shutdownNow();
        }
    }

    /** A host name whose bin in a default-sized {@link ConcurrentHashMap} is that of {@code host}. */
    private static String sameBinAs(String host) {
        for (int i = 0; ; i++) {
            String candidate = "slow-" + i + ".test";
            if (bin(candidate) == bin(host)) {
                return candidate;
            }
        }
    }

    private static int bin(String key) {
        int h = key.hashCode();
        return (h ^ (h >>> 16)) & 15;
    }
}
