package io.providermirror.server.app;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The mirror's thread pools, each bounded: blocking work of bounded length (disk, metadata requests),
 * archive downloads (one thread for each download allowed at once), and the requests a release needs in
 * parallel (their caller waits for them on an "io" thread, so they must not queue behind it), and module
 * fetches (archives and git clones, which may be slow: on their own threads, so they never hold up provider fills).
 */
record MirrorPools(ExecutorService io, ExecutorService fills, ExecutorService origin, ExecutorService modules) {

    /** Module versions fetched at once; more wait their turn. */
    static final int MODULE_FETCHES = 4;

    static MirrorPools create(int fills) {
        int threads = Math.max(16, fills);
        return new MirrorPools(
                boundedPool("mirror-io", threads),
                boundedPool("mirror-fill", fills),
                boundedPool("mirror-origin", threads),
                boundedPool("mirror-module", MODULE_FETCHES));
    }

    void shutdownNow() {
        io.shutdownNow();
        fills.shutdownNow();
        origin.shutdownNow();
        modules.shutdownNow();
    }

    void awaitTermination(long seconds) throws InterruptedException {
        io.awaitTermination(seconds, TimeUnit.SECONDS);
        fills.awaitTermination(seconds, TimeUnit.SECONDS);
        origin.awaitTermination(seconds, TimeUnit.SECONDS);
        modules.awaitTermination(seconds, TimeUnit.SECONDS);
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
