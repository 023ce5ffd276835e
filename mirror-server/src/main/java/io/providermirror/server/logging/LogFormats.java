package io.providermirror.server.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import java.util.function.Supplier;

/**
 * The mirror's two log formats, built in code rather than read from XML (parsing logback XML costs a fifth of
 * a second of start-up): text lines ({@code logging.format: text}) and JSON lines ({@code json}), both on
 * stderr, with control characters escaped and URLs stripped of their queries.
 */
public final class LogFormats {

    /** The text line: time, level, thread, logger, message, stack trace. */
    static final String TEXT_PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{0} - %msg%n%ex";

    private LogFormats() {}

    /** Sets up {@code context} (freshly made or reset) to write text lines to stderr. */
    public static void text(LoggerContext context) {
        install(context, () -> textEncoder(context));
    }

    /**
     * Sets up {@code context} (freshly made or reset) to write one JSON object per line to stderr; the access
     * log's fields (client, method, path, status, bytes, durationMs, userAgent, route, aborted) are in
     * {@code kvpList}.
     */
    public static void json(LoggerContext context) {
        install(context, () -> jsonEncoder(context));
    }

    private static Encoder<ILoggingEvent> jsonEncoder(LoggerContext context) {
        RedactingJsonEncoder encoder = new RedactingJsonEncoder();
        encoder.setContext(context);
        encoder.setWithSequenceNumber(false);
        encoder.setWithNanoseconds(false);
        encoder.setWithContext(false);
        encoder.setWithMessage(false);
        encoder.setWithArguments(false);
        encoder.setWithFormattedMessage(true);
        encoder.start();
        return encoder;
    }

    /**
     * The text format's encoder: every message ({@code %msg}) and stack trace ({@code %ex}) through
     * {@link EscapedMessageConverter} and {@link EscapedThrowableConverter}.
     */
    public static Encoder<ILoggingEvent> textEncoder(LoggerContext context) {
        PatternLayout layout = new PatternLayout();
        layout.setContext(context);
        layout.getInstanceConverterMap().put("msg", EscapedMessageConverter::new);
        layout.getInstanceConverterMap().put("ex", EscapedThrowableConverter::new);
        layout.setPattern(TEXT_PATTERN);
        layout.start();
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(context);
        encoder.setLayout(layout);
        encoder.start();
        return encoder;
    }

    private static void install(LoggerContext context, Supplier<Encoder<ILoggingEvent>> encoders) {
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(console(context, "STDERR", encoders.get()));
        // The access log (a line per request, from the event loops) goes out through a writer thread (see
        // AccessLogAppender), with its own console appender so that it is stopped after the last line is written.
        AccessLogAppender access = new AccessLogAppender();
        access.setContext(context);
        access.setName("ACCESS");
        access.addAppender(batched(context, "ACCESS_STDERR", encoders.get()));
        access.start();
        Logger accessLogger = context.getLogger("io.providermirror.access");
        accessLogger.setAdditive(false);
        accessLogger.addAppender(access);
        context.getLogger("io.netty").setLevel(Level.WARN);
        // Caffeine reports every failed load; the mirror logs those failures itself, once, with what failed.
        context.getLogger("com.github.benmanes.caffeine").setLevel(Level.ERROR);
    }

    /**
     * Standard error in batches ({@link StderrBatches}): not flushed line by line; {@link AccessLogAppender} flushes it
     * after each batch it writes.
     */
    private static OutputStreamAppender<ILoggingEvent> batched(
            LoggerContext context, String name, Encoder<ILoggingEvent> encoder) {
        OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
        appender.setContext(context);
        appender.setName(name);
        appender.setEncoder(encoder);
        appender.setImmediateFlush(false);
        appender.setOutputStream(new StderrBatches());
        appender.start();
        return appender;
    }

    private static ConsoleAppender<ILoggingEvent> console(
            LoggerContext context, String name, Encoder<ILoggingEvent> encoder) {
        ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
        appender.setContext(context);
        appender.setName(name);
        appender.setTarget("System.err");
        appender.setEncoder(encoder);
        appender.start();
        return appender;
    }
}
