package io.providermirror.upstream;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Each origin host's share of a pool that every origin's work shares: at most {@code width} tasks of one host run on
 * the pool at once, and a host's further tasks wait in that host's own queue, holding no thread, until one of its
 * running tasks ends. So an origin that hangs (each request held until its timeout) holds at most {@code width} of
 * the pool's threads however much work comes for it, and, on a pool with more threads than a lane is wide, every other
 * origin's work finds the rest. Tasks of one host start in the order they came. A lane has a queue only while it has
 * work, and {@code maxWaiting} tasks in it at most: a further one is refused with a {@link LaneFullException}, so
 * what waits for an origin that hangs is bounded too.
 *
 * <p>Only the hosts the mirror knows (those {@code ownLane} accepts: the mirror's configured hosts, say) have a lane
 * each; every other host shares one. Anybody may name hosts (a provider address is a request path, and one
 * server answers for any number of names), so a lane per unknown name would give one attacker as many shares as
 * names.
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

    /** The lane of every host {@code ownLane} does not accept (no host name is empty). */
    static final String SHARED = "";

    private final Executor pool;
    private final int width;
    private final int maxWaiting;
    private final Predicate<String> ownLane;
    /** By host name, or {@link #SHARED}; the methods below take that key as {@code host}. */
    private final ConcurrentHashMap<String, Lane> lanes = new ConcurrentHashMap<>();

    private final AtomicInteger waiting = new AtomicInteger();
    /** Told the host named by each task refused because its lane was full. */
    private volatile Consumer<String> refusals = host -> {};

    /**
     * Lanes of {@code width} tasks on {@code pool}, each queueing {@code maxWaiting} more at most: one per host, as
     * for hosts the mirror knows.
     */
    public HostLanes(Executor pool, int width, int maxWaiting) {
        this(pool, width, maxWaiting, host -> true);
    }

    /**
     * Lanes of {@code width} tasks on {@code pool}, each queueing {@code maxWaiting} more at most: one per host
     * {@code ownLane} accepts, one for all others.
     */
    public HostLanes(Executor pool, int width, int maxWaiting, Predicate<String> ownLane) {
        if (width < 1) {
            throw new IllegalArgumentException("width: " + width + " (expected: at least 1)");
        }
        if (maxWaiting < 0) {
            throw new IllegalArgumentException("maxWaiting: " + maxWaiting + " (expected: at least 0)");
        }
        this.pool = Objects.requireNonNull(pool, "pool");
        this.width = width;
        this.maxWaiting = maxWaiting;
        this.ownLane = Objects.requireNonNull(ownLane, "ownLane");
    }

    /**
     * The executor for the work of {@code host}: the pool, {@code width} tasks of its lane at once; it throws a
     * {@link LaneFullException} for a task that finds {@code maxWaiting} tasks waiting on the lane.
     */
    public Executor of(String host) {
        String lane = laneOf(host);
        return task -> execute(host, lane, task);
    }

    /** How many tasks of {@code host}'s lane run or wait now (for tests; 0 for a lane without work). */
    public int tasks(String host) {
        int[] count = new int[1];
        lanes.computeIfPresent(laneOf(host), (h, lane) -> {
            count[0] = lane.running + lane.waiting.size();
            return lane;
        });
        return count[0];
    }

    /** {@code listener} is told the host named by each task refused from now on because its lane was full. */
    public void onRefusal(Consumer<String> listener) {
        this.refusals = Objects.requireNonNull(listener, "listener");
    }

    /** How many tasks wait on their host's lane now, over every host: origins using their whole share. */
    public int waiting() {
        return waiting.get();
    }

    private String laneOf(String host) {
        Objects.requireNonNull(host, "host");
        return !host.isEmpty() && ownLane.test(host) ? host : SHARED;
    }

    private void execute(String named, String host, Runnable task) {
        Objects.requireNonNull(task, "task");
        boolean[] starts = new boolean[1];
        boolean[] full = new boolean[1];
        lanes.compute(host, (h, current) -> {
            Lane lane = current == null ? new Lane() : current;
            if (lane.running < width) {
                lane.running++;
                starts[0] = true;
            } else if (lane.waiting.size() < maxWaiting) {
                lane.waiting.add(task);
                waiting.incrementAndGet();
            } else {
                full[0] = true;
            }
            return lane;
        });
        if (full[0]) {
            refusals.accept(named);
            throw new LaneFullException(maxWaiting + " requests to "
                    + (host.equals(SHARED) ? "origins without a lane of their own (" + named + " among them)" : host)
                    + " wait already for the " + width + " running: the origin answers slowly or not at all");
        }
        if (!starts[0]) {
            return;
        }
        try {
            pool.execute(() -> runThenHandOn(host, task));
        } catch (RuntimeException | Error e) {
            // The pool has shut down, or could not start a thread: the place goes to whatever waits (refused in
            // turn, or started), and the caller is told.
            try {
                startNext(host);
            } catch (RuntimeException | Error again) {
                e.addSuppressed(again);
            }
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

    /**
     * The place of a task that ended goes to the next one waiting on its lane, else is given up. A task the pool will
     * not take (it has shut down and drops its queue, or could not start a thread) is dropped as the pool would drop
     * it, and the place goes to the next one: a lane never stops for good. Such a failure other than a refusal is
     * thrown once the lane is settled.
     */
    private void startNext(String host) {
        Throwable failure = null;
        Runnable next = handOn(host);
        while (next != null) {
            Runnable started = next;
            try {
                pool.execute(() -> runThenHandOn(host, started));
                next = null;
            } catch (RuntimeException | Error e) {
                failure = failure == null && !(e instanceof RejectedExecutionException) ? e : failure;
                next = handOn(host);
            }
        }
        if (failure instanceof Error error) {
            throw error;
        }
        if (failure instanceof RuntimeException exception) {
            throw exception;
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
