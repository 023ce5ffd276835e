package io.providermirror.server.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import ch.qos.logback.core.spi.AppenderAttachable;
import ch.qos.logback.core.spi.AppenderAttachableImpl;
import java.io.IOException;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Hands access-log lines to a writer thread, so the event loops, which log one line per request, neither format
 * it, nor take the output's lock, nor make the system call that writes it: logging a line is one lock-free
 * enqueue. Without it the event loops queued on the console appender's lock (measured with async-profiler's lock
 * profiling, see the README's Performance section). The writer drains what has arrived, in batches, into the
 * appenders attached here.
 *
 * <p>Formatting is deferred to the writer. That is safe for the access log only: its arguments are immutable
 * values (strings and numbers); the time and the thread's name are taken when the line is logged. A full queue
 * (an output that cannot keep up) makes the logging thread wait for room, as it used to wait for the output:
 * no line is dropped. Stopping writes out every queued line before the attached appenders are stopped.
 *
 * <p>An attached {@link OutputStreamAppender} that does not flush each line ({@code immediateFlush} false, as the
 * built-in formats attach {@link StderrBatches}) is flushed after each batch: under load a batch of lines leaves
 * in one write, where flushing line by line made one system call per request.
 */
public final class AccessLogAppender extends UnsynchronizedAppenderBase<ILoggingEvent>
        implements AppenderAttachable<ILoggingEvent> {

    /** Under load, how long the writer lets lines gather before it writes the next batch. */
    private static final long BATCH_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final long STOP_MILLIS = 5_000;

    private final AppenderAttachableImpl<ILoggingEvent> appenders = new AppenderAttachableImpl<>();
    private final ConcurrentLinkedQueue<ILoggingEvent> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    /** The writer found nothing to write and parks until a line arrives (and unparks it). */
    private final AtomicBoolean writerParked = new AtomicBoolean();

    private int queueSize = 8192;
    private volatile boolean stopping;
    private volatile Thread writer;

    /** How many lines may wait for the writer (8192 by default); {@code <queueSize>} in the configuration. */
    public void setQueueSize(int queueSize) {
        this.queueSize = queueSize;
    }

    @Override
    public void start() {
        if (queueSize < 1) {
            addError("queueSize must be at least 1, not " + queueSize);
            return;
        }
        if (!appenders.iteratorForAppenders().hasNext()) {
            addError("no appender attached to " + getName() + ": the access log would go nowhere");
            return;
        }
        stopping = false;
        Thread thread = new Thread(this::writeUntilStopped, "access-log-writer");
        thread.setDaemon(true);
        writer = thread;
        super.start();
        thread.start();
    }

    @Override
    protected void append(ILoggingEvent event) {
        // Taken here: the writer runs on another thread.
        event.getThreadName();
        event.getMDCPropertyMap();
        if (stopping) {
            appendNow(event);
            return;
        }
        while (queued.incrementAndGet() > queueSize) {
            queued.decrementAndGet();
            if (stopping || !isStarted()) {
                appendNow(event);
                return;
            }
            LockSupport.unpark(writer);
            LockSupport.parkNanos(this, BATCH_NANOS / 10);
        }
        queue.offer(event);
        if (writerParked.get() && writerParked.compareAndSet(true, false)) {
            LockSupport.unpark(writer);
        }
    }

    private void writeUntilStopped() {
        while (true) {
            if (drain() > 0) {
                // More lines are on their way: let them gather, and write them as one batch.
                LockSupport.parkNanos(this, BATCH_NANOS);
                continue;
            }
            if (stopping) {
                drain();
                return;
            }
            writerParked.set(true);
            // Checked after saying so: a line offered before this is seen here, one offered after unparks.
            if (queue.isEmpty() && !stopping) {
                LockSupport.park(this);
            }
            writerParked.set(false);
        }
    }

    private int drain() {
        int written = 0;
        ILoggingEvent event;
        while ((event = queue.poll()) != null) {
            queued.decrementAndGet();
            try {
                appenders.appendLoopOnAppenders(event);
            } catch (RuntimeException e) {
                addError("cannot write an access-log line", e);
            }
            written++;
        }
        if (written > 0) {
            flushBatches();
        }
        return written;
    }

    /** Writes {@code event} on the calling thread, and flushes it out. */
    private void appendNow(ILoggingEvent event) {
        appenders.appendLoopOnAppenders(event);
        flushBatches();
    }

    /** Flushes each attached appender that gathers lines instead of flushing each one. */
    private void flushBatches() {
        Iterator<Appender<ILoggingEvent>> attached = appenders.iteratorForAppenders();
        while (attached.hasNext()) {
            if (attached.next() instanceof OutputStreamAppender<ILoggingEvent> out
                    && !out.isImmediateFlush()
                    && out.isStarted()) {
                try {
                    java.io.OutputStream stream = out.getOutputStream();
                    if (stream != null) {
                        stream.flush();
                    }
                } catch (IOException | RuntimeException e) {
                    addError("cannot write access-log lines", e);
                }
            }
        }
    }

    @Override
    public void stop() {
        if (!isStarted()) {
            return;
        }
        stopping = true;
        Thread thread = writer;
        LockSupport.unpark(thread);
        try {
            thread.join(STOP_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // What was offered while the writer finished.
        drain();
        if (thread.isAlive()) {
            addWarn(queued.get() + " access-log lines not written: the output did not take them within " + STOP_MILLIS
                    + " ms");
        }
        super.stop();
        appenders.detachAndStopAllAppenders();
    }

    @Override
    public void addAppender(Appender<ILoggingEvent> appender) {
        appenders.addAppender(appender);
    }

    @Override
    public Iterator<Appender<ILoggingEvent>> iteratorForAppenders() {
        return appenders.iteratorForAppenders();
    }

    @Override
    public Appender<ILoggingEvent> getAppender(String name) {
        return appenders.getAppender(name);
    }

    @Override
    public boolean isAttached(Appender<ILoggingEvent> appender) {
        return appenders.isAttached(appender);
    }

    @Override
    public void detachAndStopAllAppenders() {
        appenders.detachAndStopAllAppenders();
    }

    @Override
    public boolean detachAppender(Appender<ILoggingEvent> appender) {
        return appenders.detachAppender(appender);
    }

    @Override
    public boolean detachAppender(String name) {
        return appenders.detachAppender(name);
    }
}
