package io.providermirror.upstream;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.stubFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.junit5.WireMockRuntimeInfo;
import com.github.tomakehurst.wiremock.junit5.WireMockTest;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Every logical origin request is reported once, with how it ended; requests never sent are not. */
@WireMockTest
final class OriginObserverTest {

    private record Report(
            String host, OriginObserver.Operation operation, OriginObserver.Outcome outcome, String failure) {}

    private final List<Report> reports = new CopyOnWriteArrayList<>();
    private final List<String> origins = new CopyOnWriteArrayList<>();

    private OriginHttpClient client(boolean offline, Set<String> internalAllowed, Duration requestTimeout)
            throws IOException {
        return new OriginHttpClient(
                new OriginHttpClient.Settings(
                        OriginClients.GENEROUS,
                        requestTimeout,
                        OriginClients.GENEROUS,
                        OriginTrust.of(null),
                        "test",
                        3,
                        1024,
                        new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(5)),
                        offline,
                        (origin, host, port) -> internalAllowed.contains(host)),
                duration -> {},
                (origin, host, operation, outcome, latency, failure) -> {
                    origins.add(origin);
                    assertThat(latency.isNegative()).isFalse();
                    reports.add(new Report(host, operation, outcome, failure));
                });
    }

    private OriginHttpClient client(boolean offline, Set<String> internalAllowed) throws IOException {
        return client(offline, internalAllowed, OriginClients.GENEROUS);
    }

    private OriginHttpClient client() throws IOException {
        return client(false, Set.of("localhost"));
    }

    /** A client whose requests time out after 800 ms, for an origin that answers after 3 s. */
    private OriginHttpClient impatient() throws IOException {
        return client(false, Set.of("localhost"), Duration.ofMillis(800));
    }

    @Test
    void aRequestIsReportedWithTheOriginItWasMadeForBesideTheAuthorityItContacted(WireMockRuntimeInfo wm)
            throws IOException {
        stubFor(get(urlEqualTo("/archive.zip")).willReturn(aResponse().withBody("zip")));

        client().openArchive(
                        "registry.example", URI.create("http://localhost:" + wm.getHttpPort() + "/archive.zip"), "test")
                .close();

        assertThat(origins).containsExactly("registry.example");
        assertThat(reports).extracting(Report::host).containsExactly("localhost:" + wm.getHttpPort());
    }

    @Test
    void aRequestThatNeededRetriesIsReportedOnceAsItEnded(WireMockRuntimeInfo wm) throws IOException {
        stubFor(get(urlEqualTo("/flaky"))
                .inScenario("flaky")
                .whenScenarioStateIs(STARTED)
                .willReturn(aResponse().withStatus(503))
                .willSetStateTo("recovered"));
        stubFor(get(urlEqualTo("/flaky"))
                .inScenario("flaky")
                .whenScenarioStateIs("recovered")
                .willReturn(aResponse().withBody("{}")));

        client().getDocument(
                        "origin.test",
                        URI.create("http://localhost:" + wm.getHttpPort() + "/flaky"),
                        "test",
                        OriginObserver.Operation.VERSIONS);

        assertThat(reports)
                .containsExactly(new Report(
                        "localhost:" + wm.getHttpPort(),
                        OriginObserver.Operation.VERSIONS,
                        OriginObserver.Outcome.SUCCESS,
                        null));
    }

    @Test
    void notFoundErrorsAndTimeoutsAreTold(WireMockRuntimeInfo wm) throws IOException {
        stubFor(get(urlEqualTo("/gone")).willReturn(aResponse().withStatus(404)));
        stubFor(get(urlEqualTo("/broken")).willReturn(aResponse().withStatus(500)));
        stubFor(get(urlEqualTo("/slow")).willReturn(aResponse().withFixedDelay(3_000)));
        OriginHttpClient client = client();
        String base = "http://localhost:" + wm.getHttpPort();

        client.getDocument("origin.test", URI.create(base + "/gone"), "test", OriginObserver.Operation.DOWNLOAD);
        client.getDocument("origin.test", URI.create(base + "/broken"), "test", OriginObserver.Operation.CHECKSUMS);
        assertThatThrownBy(() -> impatient()
                        .getDocument(
                                "origin.test", URI.create(base + "/slow"), "test", OriginObserver.Operation.SIGNATURE))
                .isInstanceOf(OriginException.class);
        assertThatThrownBy(() -> client.openArchive("origin.test", URI.create(base + "/broken"), "test"))
                .isInstanceOf(OriginException.class);

        assertThat(reports)
                .extracting(Report::operation, Report::outcome)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                OriginObserver.Operation.DOWNLOAD, OriginObserver.Outcome.NOT_FOUND),
                        org.assertj.core.groups.Tuple.tuple(
                                OriginObserver.Operation.CHECKSUMS, OriginObserver.Outcome.ERROR),
                        org.assertj.core.groups.Tuple.tuple(
                                OriginObserver.Operation.SIGNATURE, OriginObserver.Outcome.TIMEOUT),
                        org.assertj.core.groups.Tuple.tuple(
                                OriginObserver.Operation.ARCHIVE, OriginObserver.Outcome.ERROR));
        assertThat(reports.get(1).failure()).contains("answered HTTP 500");
    }

    @Test
    void aRefusedConnectionIsAnError() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        int closedPort = port;
        assertThatThrownBy(() -> client().getDocument(
                                "origin.test",
                                URI.create("http://localhost:" + closedPort + "/"),
                                "test",
                                OriginObserver.Operation.DISCOVERY))
                .isInstanceOf(OriginException.class);

        assertThat(reports).singleElement().satisfies(report -> {
            assertThat(report.outcome()).isEqualTo(OriginObserver.Outcome.ERROR);
            assertThat(report.failure()).contains("cannot connect to localhost:" + closedPort);
        });
    }

    @Test
    void requestsThatAreNeverSentAreNotReported(WireMockRuntimeInfo wm) throws IOException {
        URI internal = URI.create("http://127.0.0.1:" + wm.getHttpPort() + "/x");
        assertThatThrownBy(() -> client(false, Set.of())
                        .getDocument("origin.test", internal, "test", OriginObserver.Operation.VERSIONS))
                .hasMessageContaining("internal address");
        assertThatThrownBy(() -> client(true, Set.of("127.0.0.1"))
                        .getDocument("origin.test", internal, "test", OriginObserver.Operation.VERSIONS))
                .hasMessageContaining("upstream.offline");

        assertThat(reports).isEmpty();
    }
}
