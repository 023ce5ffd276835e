package io.providermirror.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The last hour of traffic in per-minute buckets, with time moved by the test instead of waited for. */
final class TrafficHistoryTest {

    private final SettableClock clock = new SettableClock(Instant.parse("2026-11-23T12:00:30Z"));
    private final TrafficHistory history = new TrafficHistory(clock);

    @Test
    void eachMinuteCountsItsRequestsHitsAndBytesAndTheLastMinuteIsNow() {
        history.lookup(false);
        history.lookup(true);
        history.served(1000);
        clock.advance(Duration.ofMinutes(1));
        history.lookup(true);
        history.served(500);

        var minutes = history.lastHour();

        assertThat(minutes).hasSize(TrafficHistory.MINUTES);
        assertThat(minutes.get(59))
                .isEqualTo(new TrafficHistory.Minute(Instant.parse("2026-11-23T12:01:00Z"), 1, 1, 500));
        assertThat(minutes.get(58))
                .isEqualTo(new TrafficHistory.Minute(Instant.parse("2026-11-23T12:00:00Z"), 2, 1, 1000));
        assertThat(minutes.get(58).hitRate()).hasValue(0.5);
        assertThat(minutes.get(0).requests()).isZero();
        assertThat(minutes.get(0).hitRate()).isEmpty();
    }

    @Test
    void aMinuteAnHourAgoIsForgottenWhenItsSlotComesRoundAgain() {
        history.lookup(true);
        history.served(7);
        clock.advance(Duration.ofMinutes(59));
        assertThat(history.lastHour().get(0).requests())
                .as("59 minutes ago is still shown")
                .isEqualTo(1);

        clock.advance(Duration.ofMinutes(1));
        assertThat(history.lastHour())
                .as("an hour ago has left the chart")
                .allSatisfy(minute -> assertThat(minute.requests()).isZero());

        history.lookup(false);
        assertThat(history.lastHour().get(59))
                .as("the reused slot starts from zero")
                .isEqualTo(new TrafficHistory.Minute(Instant.parse("2026-11-23T13:00:00Z"), 1, 0, 0));
    }

    @Test
    void aQuietHourAfterTrafficShowsNothing() {
        history.lookup(true);
        clock.advance(Duration.ofHours(3));

        assertThat(history.lastHour())
                .allSatisfy(minute -> assertThat(minute.requests()).isZero());
    }
}
