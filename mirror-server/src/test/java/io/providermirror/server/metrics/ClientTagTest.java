package io.providermirror.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The request meter's {@code client} tag takes the configured names and {@code anonymous}; anything else is other. */
final class ClientTagTest {

    @Test
    void onlyConfiguredNamesAndAnonymousAreTagValues() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MirrorMetrics metrics = new MirrorMetrics(registry, Clock.systemUTC());
        metrics.expectClients(List.of("ci-main", "team-web"));

        metrics.httpRequest("index", 200, "ci-main", 1_000);
        metrics.httpRequest("index", 200, "anonymous", 1_000);
        for (int i = 0; i < 50; i++) {
            metrics.httpRequest("index", 200, "unknown-" + i, 1_000);
        }

        assertThat(registry.find(MeterNames.HTTP_REQUESTS).timers().stream()
                        .map(timer -> timer.getId().getTag(MeterNames.CLIENT)))
                .containsExactlyInAnyOrder("ci-main", "anonymous", "other");
        assertThat(registry.find(MeterNames.HTTP_REQUESTS)
                        .tag(MeterNames.CLIENT, "other")
                        .timer()
                        .count())
                .isEqualTo(50);
    }
}
