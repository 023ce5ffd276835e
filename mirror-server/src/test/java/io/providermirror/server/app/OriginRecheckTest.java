package io.providermirror.server.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.server.metrics.OriginHealth;
import io.providermirror.upstream.HostLanes;
import io.providermirror.upstream.OriginObserver;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** An unreachable origin is asked again, and its health recovers with it; nothing else is asked. */
final class OriginRecheckTest {

    private final OriginHealth health = new OriginHealth(Clock.systemUTC());
    private final List<String> asked = new CopyOnWriteArrayList<>();

    private void report(String origin, OriginObserver.Outcome outcome) {
        health.requestCompleted(
                origin,
                origin,
                OriginObserver.Operation.DISCOVERY,
                outcome,
                Duration.ZERO,
                outcome == OriginObserver.Outcome.SUCCESS ? null : "service discovery for " + origin + ": refused");
    }

    /** Runs asks on the calling thread; an origin named in {@code down} still fails. */
    private OriginRecheck recheck(Set<String> down, Set<String> parentMirrorHosts) {
        return new OriginRecheck(
                health,
                host -> {
                    asked.add(host);
                    report(host, down.contains(host) ? OriginObserver.Outcome.ERROR : OriginObserver.Outcome.SUCCESS);
                },
                parentMirrorHosts,
                Runnable::run,
                new HostLanes(Runnable::run, 16, 1000),
                Duration.ofSeconds(30));
    }

    @Test
    void anUnreachableOriginThatAnswersAgainIsHealthyWithoutAClientRequest() {
        report("up.example", OriginObserver.Outcome.SUCCESS);
        report("back.example", OriginObserver.Outcome.ERROR);
        report("still-down.example", OriginObserver.Outcome.ERROR);

        recheck(Set.of("still-down.example"), Set.of()).recheck();

        assertThat(asked).containsExactlyInAnyOrder("back.example", "still-down.example");
        assertThat(health.snapshot())
                .extracting(OriginHealth.Snapshot::origin, OriginHealth.Snapshot::healthy)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("back.example", true),
                        org.assertj.core.groups.Tuple.tuple("still-down.example", false),
                        org.assertj.core.groups.Tuple.tuple("up.example", true));
    }

    @Test
    void aRefusedReleaseOrAParentMirrorIsNotAQuestionOfReachingTheOrigin() {
        health.verificationFailed("signed-badly.example", "signed-badly.example/acme/x 1.0.0", "signature", null);
        report("parent.example", OriginObserver.Outcome.ERROR);

        recheck(Set.of(), Set.of("parent.example")).recheck();

        assertThat(asked).isEmpty();
    }

    @Test
    void aClosedRecheckAsksNothing() {
        report("back.example", OriginObserver.Outcome.ERROR);
        OriginRecheck recheck = recheck(Set.of(), Set.of());
        recheck.close();

        recheck.recheck();

        assertThat(asked).isEmpty();
    }

    @Test
    void questionsToUnreachableOriginsRunOnTheirLanesSoManyAtOnceDoNotTakeEveryThread() {
        for (int i = 0; i < 10; i++) {
            report("down" + i + ".example", OriginObserver.Outcome.ERROR);
        }
        List<Runnable> pool = new ArrayList<>();
        // Lanes one task wide, and none of these hosts known: they share one lane.
        HostLanes lanes = new HostLanes(pool::add, 1, 1000, host -> false);
        OriginRecheck recheck =
                new OriginRecheck(health, asked::add, Set.of(), Runnable::run, lanes, Duration.ofSeconds(30));

        recheck.recheck();

        assertThat(pool).as("questions on the pool at once").hasSize(1);
        assertThat(lanes.waiting()).isEqualTo(9);
        pool.remove(0).run();
        assertThat(asked).hasSize(1);
        assertThat(pool)
                .as("the next question took the place of the one answered")
                .hasSize(1);
    }
}
