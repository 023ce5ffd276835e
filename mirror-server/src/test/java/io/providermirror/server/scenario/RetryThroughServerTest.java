package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.stubbing.Scenario;
import io.providermirror.testkit.FakeOriginExtension;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code upstream.maxAttempts} reaches the origin client through the server's wiring. */
final class RetryThroughServerTest {

    private static final String VERSIONS = "/v1/providers/acme/flaky/versions";

    @TempDir
    Path tmp;

    @RegisterExtension
    final FakeOriginExtension fixture = new FakeOriginExtension();

    @BeforeEach
    void start() {
        fixture.origin().publish("acme", "flaky", "1.0.0", "linux_amd64");
        // The origin fails the first request for the version list with a 503, then answers as published.
        fixture.origin()
                .wireMock()
                .stubFor(get(urlEqualTo(VERSIONS))
                        .inScenario("flaky")
                        .whenScenarioStateIs(Scenario.STARTED)
                        .willSetStateTo("recovered")
                        .willReturn(aResponse().withStatus(503)));
    }

    @Test
    void withOneAttemptAFailedOriginRequestIsNotRetried() throws Exception {
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), fixture.origin())
                .set("upstream.maxAttempts", 1)
                .start()) {
            assertThat(mirror.get(mirror.providerPath("acme", "flaky") + "index.json")
                            .statusCode())
                    .isEqualTo(502);
            assertThat(fixture.origin().requestsMatching(VERSIONS)).isEqualTo(1);
        }
    }

    @Test
    void withTwoAttemptsTheSecondAnswersTheClient() throws Exception {
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), fixture.origin())
                .set("upstream.maxAttempts", 2)
                .start()) {
            assertThat(mirror.get(mirror.providerPath("acme", "flaky") + "index.json")
                            .statusCode())
                    .isEqualTo(200);
            assertThat(fixture.origin().requestsMatching(VERSIONS)).isEqualTo(2);
        }
    }
}
