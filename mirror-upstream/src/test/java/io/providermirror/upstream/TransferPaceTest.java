package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A transfer's pace, judged on the times given: no clock is read. */
final class TransferPaceTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void aTransferBelowTheMinimumOverAWholeWindowIsTooSlowWithItsRate() {
        TransferPace pace = new TransferPace(1024, Duration.ofSeconds(10), 0, 3600 * SECOND);

        assertThat(pace.arrived(5000, 5 * SECOND))
                .as("half a window: not judged yet")
                .isEqualTo(TransferPace.Verdict.ON_PACE);
        assertThat(pace.arrived(4000, 10 * SECOND)).isEqualTo(TransferPace.Verdict.TOO_SLOW);
        assertThat(pace.lastRate()).isEqualTo(900);
    }

    @Test
    void eachWindowIsJudgedOnItsOwn() {
        TransferPace pace = new TransferPace(1024, Duration.ofSeconds(10), 0, 3600 * SECOND);

        assertThat(pace.arrived(20_480, 10 * SECOND)).isEqualTo(TransferPace.Verdict.ON_PACE);
        assertThat(pace.arrived(10_240, 20 * SECOND)).as("exactly the minimum").isEqualTo(TransferPace.Verdict.ON_PACE);
        assertThat(pace.arrived(10_000, 30 * SECOND)).isEqualTo(TransferPace.Verdict.TOO_SLOW);
    }

    @Test
    void nothingIsTakenPastTheDeadlineHoweverFastItComes() {
        TransferPace pace = new TransferPace(0, Duration.ofSeconds(10), 0, 60 * SECOND);

        assertThat(pace.arrived(1 << 20, 60 * SECOND)).isEqualTo(TransferPace.Verdict.ON_PACE);
        assertThat(pace.arrived(1 << 20, 60 * SECOND + 1)).isEqualTo(TransferPace.Verdict.PAST_DEADLINE);
    }
}
