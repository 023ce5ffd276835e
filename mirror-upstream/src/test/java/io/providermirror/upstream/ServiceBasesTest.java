package io.providermirror.upstream;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.stubFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static io.providermirror.upstream.RegistryService.MODULES;
import static io.providermirror.upstream.RegistryService.PROVIDERS;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Each host's service base URLs: discovered once for all services, kept fresh for a while, and remembered for when
 * discovery fails.
 */
@WireMockTest
final class ServiceBasesTest {

    private static final String HOST = "example.test";

    /** A {@link DiscoveryMemory} in a map. */
    private static final class MapMemory implements DiscoveryMemory {
        final Map<String, Map<RegistryService, URI>> kept = new ConcurrentHashMap<>();

        @Override
        public Map<RegistryService, URI> read(String hostname) {
            return kept.getOrDefault(hostname, Map.of());
        }

        @Override
        public void write(String hostname, Map<RegistryService, URI> bases) {
            kept.put(hostname, Map.copyOf(bases));
        }
    }

    private final MapMemory memory = new MapMemory();

    private ServiceBases bases(WireMockRuntimeInfo wm, Duration freshness) {
        return new ServiceBases(
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
        ServiceBases bases = bases(wm, Duration.ofMinutes(15));

        URI base = bases.base(HOST, PROVIDERS);
        assertThat(bases.base(HOST, PROVIDERS)).isEqualTo(base);

        assertThat(base).isEqualTo(URI.create(wm.getHttpBaseUrl() + "/v1/providers/"));
        assertThat(discoveries()).isEqualTo(1);
        assertThat(memory.kept).containsEntry(HOST, Map.of(PROVIDERS, base));
    }

    @Test
    void aFailingDiscoveryFallsBackToTheLastKnownUrl(WireMockRuntimeInfo wm) {
        memory.kept.put(HOST, Map.of(PROVIDERS, URI.create("https://registry.example.test/v1/providers/")));
        discoveryAnswers("not json");

        assertThat(bases(wm, Duration.ofMinutes(15)).base(HOST, PROVIDERS))
                .isEqualTo(URI.create("https://registry.example.test/v1/providers/"));
    }

    @Test
    void aHostThatNoLongerOffersARegistryIsNotServedFromTheLastKnownUrl(WireMockRuntimeInfo wm) {
        memory.kept.put(HOST, Map.of(PROVIDERS, URI.create("https://registry.example.test/v1/providers/")));
        discoveryAnswers("{\"modules.v1\":\"/v1/modules/\"}");

        assertThatThrownBy(() -> bases(wm, Duration.ofMinutes(15)).base(HOST, PROVIDERS))
                .isInstanceOfSatisfying(
                        OriginException.class, e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.NOT_FOUND));
    }

    @Test
    void aFailingDiscoveryWithNothingRememberedFails(WireMockRuntimeInfo wm) {
        discoveryAnswers("not json");

        assertThatThrownBy(() -> bases(wm, Duration.ofMinutes(15)).base(HOST, PROVIDERS))
                .isInstanceOf(OriginException.class)
                .hasMessageContaining("not valid JSON");
    }

    @Test
    void oneDiscoveryAnswersForProvidersAndModulesAlike(WireMockRuntimeInfo wm) {
        discoveryAnswers("{\"providers.v1\":\"/v1/providers/\",\"modules.v1\":\"/v1/modules/\"}");
        ServiceBases bases = bases(wm, Duration.ofMinutes(15));

        assertThat(bases.base(HOST, PROVIDERS)).isEqualTo(URI.create(wm.getHttpBaseUrl() + "/v1/providers/"));
        assertThat(bases.base(HOST, MODULES)).isEqualTo(URI.create(wm.getHttpBaseUrl() + "/v1/modules/"));
        assertThat(bases.base(HOST, PROVIDERS)).isEqualTo(URI.create(wm.getHttpBaseUrl() + "/v1/providers/"));

        assertThat(discoveries()).isEqualTo(1);
        assertThat(memory.kept.get(HOST)).containsOnlyKeys(PROVIDERS, MODULES);
    }

    @Test
    void aModuleRegistryUrlIsRememberedForWhenDiscoveryFailsLater(WireMockRuntimeInfo wm) {
        discoveryAnswers("{\"providers.v1\":\"/v1/providers/\",\"modules.v1\":\"/v1/modules/\"}");
        assertThat(bases(wm, Duration.ofMinutes(15)).base(HOST, PROVIDERS)).isNotNull();
        discoveryAnswers("not json");

        // Another instance over the same memory (a restart): its first discovery fails.
        assertThat(bases(wm, Duration.ofMinutes(15)).base(HOST, MODULES))
                .isEqualTo(URI.create(wm.getHttpBaseUrl() + "/v1/modules/"));
        assertThat(discoveries()).isEqualTo(2);
    }

    @Test
    void aServiceTheHostDoesNotOfferFailsAndIsAskedForAgainWhileTheOthersAreKept(WireMockRuntimeInfo wm) {
        discoveryAnswers("{\"providers.v1\":\"/v1/providers/\"}");
        ServiceBases bases = bases(wm, Duration.ofMinutes(15));
        assertThat(bases.base(HOST, PROVIDERS)).isEqualTo(URI.create(wm.getHttpBaseUrl() + "/v1/providers/"));

        assertThatThrownBy(() -> bases.base(HOST, MODULES))
                .isInstanceOfSatisfying(
                        OriginException.class, e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.NOT_FOUND))
                .hasMessage("example.test offers no module registry (its discovery document has no modules.v1)");
        assertThat(discoveries()).isEqualTo(2);

        discoveryAnswers("{\"providers.v1\":\"/v1/providers/\",\"modules.v1\":\"/v1/modules/\"}");
        assertThat(bases.base(HOST, MODULES)).isEqualTo(URI.create(wm.getHttpBaseUrl() + "/v1/modules/"));
        assertThat(bases.base(HOST, PROVIDERS)).isEqualTo(URI.create(wm.getHttpBaseUrl() + "/v1/providers/"));
        assertThat(discoveries()).isEqualTo(3);
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
        ServiceBases bases = new ServiceBases(
                new ServiceDiscovery(
                        OriginClients.http(null),
                        Map.of(
                                HOST,
                                URI.create(wm.getHttpBaseUrl() + "/"),
                                slow,
                                URI.create(wm.getHttpBaseUrl() + "/slow/"))),
                memory,
                Duration.ofMinutes(15));
        URI known = bases.base(HOST, PROVIDERS);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<URI> slowBase = pool.submit(() -> bases.base(slow, PROVIDERS));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> WireMock.findAll(getRequestedFor(urlEqualTo("/slow/.well-known/terraform.json")))
                                    .size()
                            == 1);

            // While the slow host's discovery is under way, the known host answers at once.
            assertThat(assertTimeoutPreemptively(Duration.ofSeconds(3), () -> bases.base(HOST, PROVIDERS)))
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
