package io.providermirror.server.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.read.ListAppender;
import ch.qos.logback.core.status.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The access log's writer thread: no line lost, none out of order, each with the thread that logged it. */
final class AccessLogAppenderTest {

    private static final String ACCESS = "io.providermirror.access";

    private final LoggerContext context = new LoggerContext();
    private final AccessLogAppender appender = new AccessLogAppender();
    private final ListAppender<ILoggingEvent> written = new ListAppender<>();

    AccessLogAppenderTest() {
        // What the context logback configures at start-up has; a bare one has no MDC of its own.
        context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
    }

    private Logger logger() {
        written.setContext(context);
        written.start();
        appender.setContext(context);
        appender.addAppender(written);
        appender.start();
        Logger logger = context.getLogger(ACCESS);
        logger.setAdditive(false);
        logger.addAppender(appender);
        return logger;
    }

    @AfterEach
    void stop() {
        context.stop();
    }

    /** An appender that holds the writer on its first line until {@link #open} is called. */
    private static final class Gate extends AppenderBase<ILoggingEvent> {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch open = new CountDownLatch(1);
        final List<String> lines = new ArrayList<>();

        @Override
        protected void append(ILoggingEvent event) {
            entered.countDown();
            try {
                open.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (lines) {
                lines.add(event.getFormattedMessage());
            }
        }

        List<String> lines() {
            synchronized (lines) {
                return List.copyOf(lines);
            }
        }
    }

    @Test
    void everyLineFromEveryThreadArrivesInItsThreadsOrderWithThatThreadsNameAndItsArguments() throws Exception {
        Logger logger = logger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(
                    () -> {
                        for (int i = 0; i < 500; i++) {
                            logger.info("{} \"{}\" {}", Thread.currentThread().getName(), "GET /x", i);
                        }
                    },
                    "event-loop-" + t);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> written.list.size() == 2000);
        for (int t = 0; t < 4; t++) {
            String name = "event-loop-" + t;
            List<String> lines = written.list.stream()
                    .filter(event -> event.getThreadName().equals(name))
                    .map(ILoggingEvent::getFormattedMessage)
                    .toList();
            assertThat(lines).hasSize(500);
            for (int i = 0; i < 500; i++) {
                assertThat(lines.get(i)).isEqualTo(name + " \"GET /x\" " + i);
            }
        }
    }

    @Test
    void stoppingWritesEveryQueuedLineFirst() throws Exception {
        Gate gate = new Gate();
        gate.setContext(context);
        gate.start();
        appender.addAppender(gate);
        Logger logger = logger();
        logger.info("line {}", 0);
        assertThat(gate.entered.await(10, TimeUnit.SECONDS)).isTrue();
        for (int i = 1; i < 100; i++) {
            logger.info("line {}", i);
        }

        // The writer is still held on the first line when stop() begins: it lets the writer go only once this
        // thread waits in stop().
        Thread stopping = Thread.currentThread();
        Thread opener = new Thread(() -> {
            await().atMost(Duration.ofSeconds(10)).until(() -> stopping.getState() == Thread.State.TIMED_WAITING);
            gate.open.countDown();
        });
        opener.start();
        appender.stop();
        opener.join();

        assertThat(gate.lines()).hasSize(100).startsWith("line 0", "line 1").endsWith("line 99");
        assertThat(gate.isStarted())
                .as("the attached appender is stopped after the last line")
                .isFalse();
    }

    @Test
    void aFullQueueMakesTheLoggingThreadWaitInsteadOfDroppingLines() throws Exception {
        appender.setQueueSize(2);
        Gate gate = new Gate();
        gate.setContext(context);
        gate.start();
        appender.addAppender(gate);
        Logger logger = logger();
        logger.info("line {}", 0);
        assertThat(gate.entered.await(10, TimeUnit.SECONDS)).isTrue();
        CountDownLatch logged = new CountDownLatch(1);
        Thread eventLoop = new Thread(() -> {
            for (int i = 1; i <= 5; i++) {
                logger.info("line {}", i);
            }
            logged.countDown();
        });
        eventLoop.start();

        // Two lines fit while the writer is held; the third waits for room.
        assertThat(logged.await(300, TimeUnit.MILLISECONDS)).isFalse();
        gate.open.countDown();
        assertThat(logged.await(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> gate.lines().size() == 6);
        assertThat(gate.lines()).containsExactly("line 0", "line 1", "line 2", "line 3", "line 4", "line 5");
    }

    /** Standard error as a test sees it: every write, and the first one held until {@link #open} is called. */
    private static final class HeldOutput extends java.io.OutputStream {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch open = new CountDownLatch(1);
        final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        final java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
        volatile boolean closed;

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            entered.countDown();
            try {
                open.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            writes.incrementAndGet();
            synchronized (bytes) {
                bytes.write(b, off, len);
            }
        }

        @Override
        public void close() {
            closed = true;
        }

        String text() {
            synchronized (bytes) {
                return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
            }
        }
    }

    @Test
    void theLinesOfABatchLeaveInOneWriteAndNoneIsLeftInTheBuffer() throws Exception {
        HeldOutput stderr = new HeldOutput();
        ch.qos.logback.classic.encoder.PatternLayoutEncoder encoder =
                new ch.qos.logback.classic.encoder.PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%msg%n");
        encoder.start();
        OutputStreamAppender<ILoggingEvent> out = new OutputStreamAppender<>();
        out.setContext(context);
        out.setEncoder(encoder);
        out.setImmediateFlush(false);
        out.setOutputStream(new StderrBatches(stderr));
        out.start();
        appender.addAppender(out);
        Logger logger = logger();

        logger.info("line {}", 0);
        assertThat(stderr.entered.await(10, TimeUnit.SECONDS))
                .as("a line alone is written out at once")
                .isTrue();
        StringBuilder expected = new StringBuilder("line 0\n");
        for (int i = 1; i < 100; i++) {
            logger.info("line {}", i);
            expected.append("line ").append(i).append('\n');
        }
        stderr.open.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> stderr.text().contentEquals(expected));
        assertThat(stderr.writes.get())
                .as("the first line, then the 99 that gathered while it was written, in one write")
                .isEqualTo(2);
        appender.stop();
        assertThat(stderr.closed).as("standard error stays open").isFalse();
    }

    @Test
    void withoutAnAttachedAppenderItDoesNotStart() {
        appender.setContext(context);
        appender.start();
        assertThat(appender.isStarted()).isFalse();
        assertThat(context.getStatusManager().getCopyOfStatusList())
                .anyMatch(status ->
                        status.getLevel() == Status.ERROR && status.getMessage().contains("no appender attached"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void theBuiltInFormatsSendTheAccessLogThroughItWithTheSameEncodingAsEveryOtherLine() {
        Map<String, java.util.function.Consumer<LoggerContext>> formats =
                Map.of("text", LogFormats::text, "json", LogFormats::json);
        formats.forEach((format, install) -> {
            LoggerContext shipped = new LoggerContext();
            install.accept(shipped);
            try {
                assertThat(shipped.getStatusManager().getCopyOfStatusList())
                        .as("logback's complaints about " + format)
                        .noneMatch(status -> status.getLevel() >= Status.WARN);
                Logger access = shipped.getLogger(ACCESS);
                assertThat(access.isAdditive()).as(format).isFalse();
                AccessLogAppender writer = (AccessLogAppender) access.getAppender("ACCESS");
                assertThat(writer.isStarted()).as(format).isTrue();
                OutputStreamAppender<ILoggingEvent> out =
                        (OutputStreamAppender<ILoggingEvent>) writer.getAppender("ACCESS_STDERR");
                OutputStreamAppender<ILoggingEvent> stderr = (OutputStreamAppender<ILoggingEvent>)
                        shipped.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDERR");
                assertThat(out.getEncoder().getClass())
                        .as(format)
                        .isEqualTo(stderr.getEncoder().getClass());
                assertThat(out.getEncoder()).as(format).isNotSameAs(stderr.getEncoder());
                assertThat(out.isImmediateFlush())
                        .as(format + ": flushed by the writer after each batch")
                        .isFalse();
                assertThat(out.getOutputStream()).as(format).isInstanceOf(StderrBatches.class);
            } finally {
                shipped.stop();
            }
        });
    }
}
