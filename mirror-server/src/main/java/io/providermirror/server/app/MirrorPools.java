package io.providermirror.server.app;

import io.providermirror.server.config.UpstreamConfig;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.HostLanes;
import io.providermirror.upstream.OriginCredentials;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The mirror's thread pools, each bounded: blocking work of bounded length (disk, metadata requests),
 * fetches from origins (provider archives, module archives and git clones: one thread for each place
 * {@code upstream.maxConcurrentFills} allows, so a fetch holding a place never queues, and no host holds more than
 * {@code upstream.maxConcurrentFillsPerHost} of them), and the requests a release needs in parallel (their caller
 * waits for them on an "io" thread, so they must not queue behind it). Requests to origins run on the "io" and
 * "origin" pools through their lanes: a lane (each known origin's, and one for all others) runs at most
 * {@code max(16, maxConcurrentFills)} tasks at once, and each of the two pools has {@code maxConcurrentFillsPerHost}
 * threads more, which one origin that hangs therefore never takes from the others.
 */
record MirrorPools(
        ExecutorService io, ExecutorService fills, ExecutorService origin, HostLanes ioLanes, HostLanes originLanes) {

    static MirrorPools create(UpstreamConfig upstream, OriginCredentials tokens) {
        int fills = upstream.maxConcurrentFills();
        int laneWidth = Math.max(16, fills);
        int threads = laneWidth + upstream.maxConcurrentFillsPerHost();
        java.util.function.Predicate<String> known = knownHosts(upstream, tokens);
        ExecutorService io = boundedPool("mirror-io", threads);
        ExecutorService origin = boundedPool("mirror-origin", threads);
        return new MirrorPools(
                io,
                boundedPool("mirror-fill", fills),
                origin,
                new HostLanes(io, laneWidth, upstream.maxWaitingPerHost(), known),
                new HostLanes(origin, laneWidth, upstream.maxWaitingPerHost(), known));
    }

    /** The origin hosts the mirror expects requests for: each configured one, and the public registries. */
    static Set<String> expectedHosts(UpstreamConfig upstream) {
        Set<String> expected = new TreeSet<>(upstream.hosts().keySet());
        expected.addAll(MirrorMetrics.PUBLIC_REGISTRIES);
        return expected;
    }

    /**
     * The hosts with a lane of their own: the expected ones, and each with a token. Every other name shares one lane:
     * names cost an attacker nothing.
     */
    private static java.util.function.Predicate<String> knownHosts(UpstreamConfig upstream, OriginCredentials tokens) {
        Set<String> expected = expectedHosts(upstream);
        return host -> expected.contains(host) || tokens.tokenFor(host).isPresent();
    }

    void shutdownNow() {
        io.shutdownNow();
        fills.shutdownNow();
        origin.shutdownNow();
    }

    void awaitTermination(long seconds) throws InterruptedException {
        io.awaitTermination(seconds, TimeUnit.SECONDS);
        fills.awaitTermination(seconds, TimeUnit.SECONDS);
        origin.awaitTermination(seconds, TimeUnit.SECONDS);
    }

    /** Up to {@code threads} daemon threads, started when work comes and ended after a minute idle; more work queues. */
    private static ExecutorService boundedPool(String prefix, int threads) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(
                threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), daemonThreads(prefix));
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    private static java.util.concurrent.ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
