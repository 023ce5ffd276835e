package io.providermirror.upstream;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Each origin host's share of a pool that every origin's work shares: at most {@code width} tasks of one host run on
 * the pool at once, and a host's further tasks wait in that host's own queue, holding no thread, until one of its
 * running tasks ends. So an origin that hangs (each request held until its timeout) holds at most {@code width} of
 * the pool's threads however much work comes for it, and every other origin's work finds the rest. Tasks of one host
 * start in the order they came. A host has a queue only while it has work, so hosts named by clients leave nothing
 * behind.
 *
 * <p>A task must never wait for another task of the same host on the same lanes: the one waited for may be queued
 * behind the waiting ones. (A task on one pool's lanes may wait for tasks on another's: a release's verification,
 * on the blocking pool, waits for its download documents, fetched on the origin pool.)
 */
public final class HostLanes {

    /** A host's running tasks and those waiting for one of them to end. */
    private static final class Lane {
        int running;
        final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    }

    private final Executor pool;
    private final int width;
    private final ConcurrentHashMap<String, Lane> lanes = new ConcurrentHashMap<>();
    private final AtomicInteger waiting = new AtomicInteger();

    /** Lanes of {@code width} tasks per host on {@code pool}. */
    public HostLanes(Executor pool, int width) {
        if (width < 1) {
            throw new IllegalArgumentException("width: " + width + " (expected: at least 1)");
        }
        this.pool = Objects.requireNonNull(pool, "pool");
        this.width = width;
    }

    /** The executor for the work of {@code host}: the pool, {@code width} of its tasks at once. */
    public Executor of(String host) {
        Objects.requireNonNull(host, "host");
        return task -> execute(host, task);
    }

    /** How many tasks of {@code host} run or wait now (for tests and meters; 0 for a host without work). */
    public int tasks(String host) {
        int[] count = new int[1];
        lanes.computeIfPresent(host, (h, lane) -> {
            count[0] = lane.running + lane.waiting.size();
            return lane;
        });
        return count[0];
    }

    /** How many tasks wait on their host's lane now, over every host: origins using their whole share. */
    public int waiting() {
        return waiting.get();
    }

    private void execute(String host, Runnable task) {
        Objects.requireNonNull(task, "task");
        boolean[] starts = new boolean[1];
        lanes.compute(host, (h, current) -> {
            Lane lane = current == null ? new Lane() : current;
            if (lane.running < width) {
                lane.running++;
                starts[0] = true;
            } else {
                lane.waiting.add(task);
                waiting.incrementAndGet();
            }
            return lane;
        });
        if (!starts[0]) {
            return;
        }
        try {
            pool.execute(() -> runThenHandOn(host, task));
        } catch (RejectedExecutionException e) {
            // The pool has shut down: its place goes to whatever waits (refused in turn), and the caller is told.
            startNext(host);
            throw e;
        }
    }

    private void runThenHandOn(String host, Runnable task) {
        try {
            task.run();
        } finally {
            startNext(host);
        }
    }

    /** The place of a task that ended goes to the next one waiting on its host's lane, else is given up. */
    private void startNext(String host) {
        Runnable next = handOn(host);
        while (next != null) {
            Runnable started = next;
            try {
                pool.execute(() -> runThenHandOn(host, started));
                return;
            } catch (RejectedExecutionException e) {
                // The pool has shut down and drops its queue as it does: so is this task dropped.
                next = handOn(host);
            }
        }
    }

    /** The next task waiting on the lane, which takes the ended task's place; none, and the place is given up. */
    private Runnable handOn(String host) {
        Runnable[] next = new Runnable[1];
        lanes.computeIfPresent(host, (h, lane) -> {
            next[0] = lane.waiting.poll();
            if (next[0] != null) {
                waiting.decrementAndGet();
                return lane;
            }
            lane.running--;
            return lane.running == 0 ? null : lane;
        });
        return next[0];
    }
}
