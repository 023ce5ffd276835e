package io.providermirror.cache;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flushes blobs being written to disk in the background while they are written, every {@link #FLUSH_BYTES}, so that
 * the flush their commit makes (which clients following a cold archive wait for: its last byte is released at the
 * commit) has only what came since the last one left to write, not the whole archive. Without it the kernel starts
 * writing a new file back only long after (30 s, or once a tenth of the memory is dirty), and the commit of a 50 MB
 * archive flushed all of it while its clients waited (about 20 ms on the build machine, a sixth of the transfer).
 * One background thread for the whole store, ending when idle; at most one flush of each file at a time. A flush that
 * fails is left for the commit's own, which reports it. Closing the file (commit, abort) waits for a flush in
 * progress.
 */
final class WriteBack {

    /** A file being written is flushed each time this much more was written to it. */
    static final long FLUSH_BYTES = 8L * 1024 * 1024;

    private static final Logger LOG = LoggerFactory.getLogger(WriteBack.class);

    private final Executor flusher;

    /** Flushes on a daemon thread of its own, started when needed and ended after 10 s idle. */
    WriteBack() {
        this(newFlusher());
    }

    /** Flushes on {@code flusher}: tests run the flushes where they see them. */
    WriteBack(Executor flusher) {
        this.flusher = flusher;
    }

    private static Executor newFlusher() {
        ThreadPoolExecutor executor =
                new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), runnable -> {
                    Thread thread = new Thread(runnable, "cache-write-back");
                    thread.setDaemon(true);
                    return thread;
                });
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }

    /** Follows the writes to {@code file}; one writer thread reports them. */
    File follow(FileChannel file) {
        return new File(file);
    }

    /** One file being written: counts what was written since its last flush began. */
    final class File {
        private final FileChannel channel;
        private final AtomicBoolean flushing = new AtomicBoolean();
        private long unflushed;

        private File(FileChannel channel) {
            this.channel = channel;
        }

        /** The writer appended {@code bytes}; starts a flush in the background once enough are not yet flushed. */
        void written(long bytes) {
            unflushed += bytes;
            if (unflushed >= FLUSH_BYTES && flushing.compareAndSet(false, true)) {
                unflushed = 0;
                flusher.execute(this::flush);
            }
        }

        private void flush() {
            try {
                channel.force(false);
            } catch (IOException e) {
                // Closed by its commit or abort meanwhile, or the disk: the commit's own flush reports a failure.
                LOG.debug("flushing a blob being written failed: {}", e.toString());
            } finally {
                flushing.set(false);
            }
        }
    }
}
