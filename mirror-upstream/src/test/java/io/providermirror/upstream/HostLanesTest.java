package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

/**
 * Each host's share of a shared pool. The pool here only collects what it is given, and the test runs it, so what
 * reaches the pool, and when, is seen exactly.
 */
final class HostLanesTest {

    /**
     * A pool that holds what it is given until the test runs it; refuses everything once shut; fails the next task as
     * {@code ThreadPoolExecutor.execute} does when it cannot start a worker, once, when told to.
     */
    private static final class HeldPool implements Executor {
        final ArrayDeque<Runnable> given = new ArrayDeque<>();
        boolean shut;
        boolean noThreadOnce;

        @Override
        public void execute(Runnable task) {
            if (shut) {
                throw new RejectedExecutionException("shut down");
            }
            if (noThreadOnce) {
                noThreadOnce = false;
                throw new OutOfMemoryError("unable to create native thread");
            }
            given.add(task);
        }

        void runNext() {
            given.remove().run();
        }
    }

    private final HeldPool pool = new HeldPool();
    private final List<String> ran = new ArrayList<>();

    private Runnable task(String name) {
        return () -> ran.add(name);
    }

    @Test
    void atMostTheWidthOfOneHostsTasksReachThePoolAndTheRestStartInTurnAsEachEnds() {
        HostLanes lanes = new HostLanes(pool, 2, 1000);
        Executor stuck = lanes.of("stuck.test");
        for (int i = 1; i <= 5; i++) {
            stuck.execute(task("s" + i));
        }

        assertThat(pool.given).hasSize(2);
        assertThat(lanes.tasks("stuck.test")).isEqualTo(5);
        assertThat(lanes.waiting()).isEqualTo(3);

        pool.runNext();
        assertThat(ran).containsExactly("s1");
        assertThat(pool.given)
                .as("the ended task's place went to the next one waiting")
                .hasSize(2);
        while (!pool.given.isEmpty()) {
            pool.runNext();
        }
        assertThat(ran).containsExactly("s1", "s2", "s3", "s4", "s5");
        assertThat(lanes.tasks("stuck.test"))
                .as("a host without work keeps nothing")
                .isZero();
        assertThat(lanes.waiting()).isZero();
    }

    @Test
    void anotherHostsTasksReachThePoolWhateverWaitsOnTheFirstHostsLane() {
        HostLanes lanes = new HostLanes(pool, 2, 1000);
        for (int i = 0; i < 50; i++) {
            lanes.of("stuck.test").execute(task("stuck"));
        }

        lanes.of("healthy.test").execute(task("healthy"));

        assertThat(pool.given).hasSize(3);
        pool.given.removeLast().run();
        assertThat(ran).containsExactly("healthy");
        assertThat(lanes.tasks("healthy.test")).isZero();
        assertThat(lanes.tasks("stuck.test")).isEqualTo(50);
        assertThat(lanes.waiting()).isEqualTo(48);
    }

    @Test
    void aTaskThatFailsStillHandsItsPlaceOn() {
        HostLanes lanes = new HostLanes(pool, 1, 1000);
        lanes.of("h").execute(() -> {
            throw new IllegalStateException("boom");
        });
        lanes.of("h").execute(task("after"));

        assertThatThrownBy(pool::runNext).hasMessage("boom");
        pool.runNext();

        assertThat(ran).containsExactly("after");
        assertThat(lanes.tasks("h")).isZero();
    }

    @Test
    void whenThePoolRefusesTheCallerIsToldAndTheLaneGivesUpItsPlaces() {
        HostLanes lanes = new HostLanes(pool, 1, 1000);
        lanes.of("h").execute(task("running"));
        lanes.of("h").execute(task("waiting"));
        pool.shut = true;

        pool.runNext();
        assertThat(lanes.tasks("h"))
                .as("the waiting task was refused by the pool, and dropped as its queue is")
                .isZero();
        assertThat(lanes.waiting()).isZero();
        assertThatThrownBy(() -> lanes.of("h").execute(task("refused"))).isInstanceOf(RejectedExecutionException.class);
        assertThat(lanes.tasks("h")).isZero();
        assertThat(ran).containsExactly("running");
    }

    @Test
    void aLaneIsAtLeastOneTaskWide() {
        assertThatThrownBy(() -> new HostLanes(pool, 0, 1000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("width: 0");
    }

    @Test
    void aPoolThatFailsOtherwiseThanByRefusingLeavesTheHostItsPlace() {
        // The lane must not keep counting a task the pool could not take as running.
        HostLanes lanes = new HostLanes(pool, 1, 1000);
        pool.noThreadOnce = true;

        assertThatThrownBy(() -> lanes.of("a.test").execute(task("lost"))).isInstanceOf(OutOfMemoryError.class);
        lanes.of("a.test").execute(task("next"));

        assertThat(lanes.tasks("a.test"))
                .as("tasks of the host after the failed one")
                .isEqualTo(1);
        assertThat(pool.given).as("the next task reaches the pool").hasSize(1);
    }

    @Test
    void aWaitingTaskThePoolCannotStartIsDroppedAndTheNextOneTakesThePlace() {
        HostLanes lanes = new HostLanes(pool, 1, 1000);
        lanes.of("h").execute(task("first"));
        lanes.of("h").execute(task("dropped"));
        lanes.of("h").execute(task("third"));
        pool.noThreadOnce = true;

        assertThatThrownBy(pool::runNext)
                .as("the thread that ended the first task learns why the next could not start")
                .isInstanceOf(OutOfMemoryError.class);
        assertThat(ran).containsExactly("first");
        assertThat(lanes.tasks("h"))
                .as("the dropped task left, the third took its place")
                .isEqualTo(1);
        pool.runNext();
        assertThat(ran).containsExactly("first", "third");
        assertThat(lanes.tasks("h")).isZero();
    }

    @Test
    void hostsTheMirrorDoesNotKnowShareOneLaneSoManyNamesAreOneShare() {
        HostLanes lanes = new HostLanes(pool, 2, 1000, "registry.terraform.io"::equals);
        for (int i = 0; i < 10; i++) {
            lanes.of("a" + i + ".attacker.test").execute(task("attacker"));
        }
        lanes.of("registry.terraform.io").execute(task("known"));

        assertThat(pool.given)
                .as("two of the attacker's names' tasks, and the known host's")
                .hasSize(3);
        assertThat(lanes.tasks("a0.attacker.test")).isEqualTo(10);
        assertThat(lanes.tasks("elsewhere.test"))
                .as("one lane for every unknown host")
                .isEqualTo(10);
        assertThat(lanes.tasks("registry.terraform.io")).isEqualTo(1);
        assertThat(lanes.waiting()).isEqualTo(8);
    }

    @Test
    void aLaneQueuesAtMostItsBoundAndRefusesTheNextTaskNamingItsHostUntilOneLeaves() {
        HostLanes lanes = new HostLanes(pool, 1, 2, "stuck.test"::equals);
        List<String> refusedHosts = new ArrayList<>();
        lanes.onRefusal(refusedHosts::add);
        for (int i = 1; i <= 3; i++) {
            lanes.of("stuck.test").execute(task("s" + i));
        }

        assertThatThrownBy(() -> lanes.of("stuck.test").execute(task("refused")))
                .isInstanceOf(LaneFullException.class)
                .isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("2 requests to stuck.test wait already");
        assertThat(refusedHosts).containsExactly("stuck.test");
        assertThatCode(() -> lanes.of("elsewhere.test").execute(task("unknown")))
                .as("another lane has room")
                .doesNotThrowAnyException();
        assertThat(lanes.waiting()).isEqualTo(2);

        pool.runNext();
        lanes.of("stuck.test").execute(task("s4"));
        assertThat(lanes.tasks("stuck.test")).isEqualTo(3);
        while (!pool.given.isEmpty()) {
            pool.runNext();
        }
        assertThat(ran).containsExactly("s1", "unknown", "s2", "s3", "s4");
    }

    @Test
    void theSharedLaneIsFullForEveryHostWithoutALaneAndSaysSo() {
        HostLanes lanes = new HostLanes(pool, 1, 0, host -> false);
        lanes.of("a.attacker.test").execute(task("a"));

        assertThatThrownBy(() -> lanes.of("b.attacker.test").execute(task("b")))
                .isInstanceOf(LaneFullException.class)
                .hasMessageContaining("origins without a lane of their own (b.attacker.test among them)");
        assertThat(lanes.waiting()).isZero();
    }
}
