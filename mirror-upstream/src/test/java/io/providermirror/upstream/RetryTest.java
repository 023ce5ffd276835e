package io.providermirror.upstream;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.stubFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.verify;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.junit5.WireMockRuntimeInfo;
import com.github.tomakehurst.wiremock.junit5.WireMockTest;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

@WireMockTest
final class RetryTest {

    private final List<Duration> pauses = new CopyOnWriteArrayList<>();

    private OriginHttpClient client(int attempts, Duration deadline) throws IOException {
        return new OriginHttpClient(
                new OriginHttpClient.Settings(
                        OriginClients.GENEROUS,
                        deadline,
                        OriginClients.GENEROUS,
                        OriginTrust.of(null),
                        "test",
                        3,
                        1024,
                        new RetryPolicy(attempts, Duration.ofMillis(100), Duration.ofSeconds(1)),
                        false,
                        (origin, host, port) -> host.equals("127.0.0.1") || host.equals("localhost")),
                pauses::add);
    }

    private static void failThenSucceed(String path, int failures, int status, String retryAfter) {
        for (int i = 0; i < failures; i++) {
            var response = aResponse().withStatus(status);
            if (retryAfter != null) {
                response = response.withHeader("Retry-After", retryAfter);
            }
            stubFor(get(urlEqualTo(path))
                    .inScenario(path)
                    .whenScenarioStateIs(i == 0 ? STARTED : "failed-" + i)
                    .willReturn(response)
                    .willSetStateTo("failed-" + (i + 1)));
        }
        stubFor(get(urlEqualTo(path))
                .inScenario(path)
                .whenScenarioStateIs("failed-" + failures)
                .willReturn(aResponse().withBody("ok")));
    }

    @Test
    void serverErrorsAreRetriedWithGrowingJitteredPauses(WireMockRuntimeInfo wm) throws IOException {
        failThenSucceed("/flaky", 2, 503, null);
        OriginHttpClient.Document document = client(3, Duration.ofSeconds(30))
                .getDocument(
                        "origin.test",
                        URI.create(wm.getHttpBaseUrl() + "/flaky"),
                        "test",
                        OriginObserver.Operation.VERSIONS);
        assertThat(document.status()).isEqualTo(200);
        verify(3, getRequestedFor(urlEqualTo("/flaky")));
        assertThat(pauses).hasSize(2);
        assertThat(pauses.get(0)).isLessThanOrEqualTo(Duration.ofMillis(100));
        assertThat(pauses.get(1)).isLessThanOrEqualTo(Duration.ofMillis(200));
    }

    @Test
    void tooManyRequestsHonoursRetryAfter(WireMockRuntimeInfo wm) throws IOException {
        failThenSucceed("/busy", 1, 429, "2");
        assertThat(client(3, Duration.ofSeconds(30))
                        .getDocument(
                                "origin.test",
                                URI.create(wm.getHttpBaseUrl() + "/busy"),
                                "test",
                                OriginObserver.Operation.VERSIONS)
                        .status())
                .isEqualTo(200);
        assertThat(pauses).containsExactly(Duration.ofSeconds(2));
    }

    @Test
    void aRetryAfterBeyondTheDeadlineGivesUpAtOnce(WireMockRuntimeInfo wm) throws IOException {
        failThenSucceed("/later", 1, 503, "60");
        assertThatThrownBy(() -> client(3, Duration.ofSeconds(30))
                        .getDocument(
                                "origin.test",
                                URI.create(wm.getHttpBaseUrl() + "/later"),
                                "test",
                                OriginObserver.Operation.VERSIONS))
                .isInstanceOfSatisfying(
                        OriginException.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.UNAVAILABLE))
                .hasMessageContaining("HTTP 503")
                .hasMessageContaining("gave up after 1 attempt");
        assertThat(pauses).isEmpty();
    }

    @Test
    void notImplementedAndClientErrorsAreNotRetried(WireMockRuntimeInfo wm) throws IOException {
        stubFor(get(urlEqualTo("/501")).willReturn(aResponse().withStatus(501)));
        stubFor(get(urlEqualTo("/404")).willReturn(aResponse().withStatus(404)));
        OriginHttpClient client = client(3, Duration.ofSeconds(30));
        assertThat(client.getDocument(
                                "origin.test",
                                URI.create(wm.getHttpBaseUrl() + "/501"),
                                "test",
                                OriginObserver.Operation.VERSIONS)
                        .status())
                .isEqualTo(501);
        assertThat(client.getDocument(
                                "origin.test",
                                URI.create(wm.getHttpBaseUrl() + "/404"),
                                "test",
                                OriginObserver.Operation.VERSIONS)
                        .status())
                .isEqualTo(404);
        verify(1, getRequestedFor(urlEqualTo("/501")));
        verify(1, getRequestedFor(urlEqualTo("/404")));
    }

    @Test
    void persistentServerErrorsStopAfterMaxAttempts(WireMockRuntimeInfo wm) throws IOException {
        stubFor(get(urlEqualTo("/down")).willReturn(aResponse().withStatus(502)));
        assertThat(client(3, Duration.ofSeconds(30))
                        .getDocument(
                                "origin.test",
                                URI.create(wm.getHttpBaseUrl() + "/down"),
                                "test",
                                OriginObserver.Operation.VERSIONS)
                        .status())
                .isEqualTo(502);
        verify(3, getRequestedFor(urlEqualTo("/down")));
    }

    @Test
    void connectionFailuresAreRetriedThenReported() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        assertThatThrownBy(() -> client(3, Duration.ofSeconds(30))
                        .getDocument(
                                "origin.test",
                                URI.create("http://127.0.0.1:" + port + "/x"),
                                "test",
                                OriginObserver.Operation.VERSIONS))
                .isInstanceOfSatisfying(
                        OriginException.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.UNAVAILABLE))
                .hasMessageContaining("cannot connect to 127.0.0.1:" + port)
                .hasMessageContaining("gave up after 3 attempts");
        assertThat(pauses).hasSize(2);
    }

    @Test
    void theDeadlineCoversEveryAttempt(WireMockRuntimeInfo wm) throws IOException {
        stubFor(get(urlEqualTo("/slow"))
                .willReturn(aResponse().withFixedDelay(2_000).withBody("late")));
        assertThatThrownBy(() -> client(3, Duration.ofMillis(500))
                        .getDocument(
                                "origin.test",
                                URI.create(wm.getHttpBaseUrl() + "/slow"),
                                "test",
                                OriginObserver.Operation.VERSIONS))
                .isInstanceOfSatisfying(
                        OriginException.class, e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.TIMEOUT));
        verify(1, getRequestedFor(urlEqualTo("/slow")));
    }

    @Test
    void policyBacksOffExponentiallyWithFullJitterAndParsesRetryAfter() {
        RetryPolicy policy = new RetryPolicy(5, Duration.ofMillis(100), Duration.ofMillis(500));
        assertThat(policy.delayBefore(2, Optional.empty(), () -> 1.0)).isEqualTo(Duration.ofMillis(100));
        assertThat(policy.delayBefore(3, Optional.empty(), () -> 1.0)).isEqualTo(Duration.ofMillis(200));
        assertThat(policy.delayBefore(5, Optional.empty(), () -> 1.0)).isEqualTo(Duration.ofMillis(500));
        assertThat(policy.delayBefore(5, Optional.empty(), () -> 0.0)).isEqualTo(Duration.ZERO);
        assertThat(policy.delayBefore(2, Optional.of(Duration.ofSeconds(3)), () -> 1.0))
                .isEqualTo(Duration.ofSeconds(3));
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        assertThat(RetryPolicy.parseRetryAfter("7", now)).contains(Duration.ofSeconds(7));
        assertThat(RetryPolicy.parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now))
                .contains(Duration.ofSeconds(30));
        assertThat(RetryPolicy.parseRetryAfter("soon", now)).isEmpty();
        assertThat(RetryPolicy.isRetryableStatus(429)).isTrue();
        assertThat(RetryPolicy.isRetryableStatus(500)).isTrue();
        assertThat(RetryPolicy.isRetryableStatus(501)).isFalse();
        assertThat(RetryPolicy.isRetryableStatus(404)).isFalse();
    }
}
