package io.providermirror.server.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.server.metrics.MirrorMetrics;
import java.time.Duration;
import org.junit.jupiter.api.Test;

final class FillPermitsTest {

    private final FillPermits permits = new FillPermits(
            new FillBounds(3, 2, Duration.ofHours(1), 1024, Duration.ofSeconds(30)), MirrorMetrics.discarding());

    @Test
    void oneOriginHostGetsAtMostItsShareAndTheOthersTheRest() {
        FillPermits.Permit first = permits.acquire("evil.example", "a");
        permits.acquire("evil.example", "b");
        assertThatThrownBy(() -> permits.acquire("evil.example", "c"))
                .isInstanceOf(CapacityException.class)
                .hasMessageContaining("2 archives from evil.example (upstream.maxConcurrentFillsPerHost)");

        permits.acquire("registry.terraform.io", "d");
        assertThatThrownBy(() -> permits.acquire("registry.terraform.io", "e"))
                .isInstanceOf(CapacityException.class)
                .hasMessageContaining("3 archives from origins (upstream.maxConcurrentFills)")
                .hasMessageContaining("e from registry.terraform.io");

        first.close();
        first.close();
        assertThat(permits.inUse()).as("closing twice gives back one place").isEqualTo(2);
        permits.acquire("evil.example", "c");
        assertThat(permits.inUse()).isEqualTo(3);
    }

    @Test
    void aRefusalSaysWhenToTryAgain() {
        permits.acquire("h", "a");
        permits.acquire("h", "b");
        assertThatThrownBy(() -> permits.acquire("h", "c")).isInstanceOfSatisfying(CapacityException.class, e -> {
            assertThat(e.limit()).isEqualTo(CapacityException.Limit.FILLS);
            assertThat(e.retryAfter()).isPositive();
        });
    }
}
