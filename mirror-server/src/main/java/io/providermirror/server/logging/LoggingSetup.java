package io.providermirror.server.logging;

import ch.qos.logback.classic.LoggerContext;
import io.providermirror.server.config.LoggingConfig;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * Applies {@code logging.format}: the built-in configuration ({@link BuiltInLogging}) writes text lines;
 * {@code json} switches to {@link LogFormats#json}, one JSON object per line. A logging configuration of the
 * operator's own ({@code -Dlogback.configurationFile}) is left alone.
 */
public final class LoggingSetup {

    private LoggingSetup() {}

    /**
     * Applies {@code config}. Returns once logging is initialised (StartupPreload may be doing it on its own
     * thread), so nothing logged afterwards is held back and replayed with a warning from SLF4J.
     */
    public static void apply(LoggingConfig config) {
        ILoggerFactory factory = initialisedFactory();
        if (!config.json() || System.getProperty("logback.configurationFile") != null) {
            return;
        }
        if (!(factory instanceof LoggerContext context)) {
            return;
        }
        context.reset();
        LogFormats.json(context);
    }

    /**
     * For the commands (warm, export, import), whose output is for people: the log shows warnings and errors
     * only, on stderr, unless {@code verbose}.
     */
    public static void forCommand(boolean verbose) {
        if (verbose) {
            return;
        }
        if (initialisedFactory() instanceof LoggerContext context) {
            context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(ch.qos.logback.classic.Level.WARN);
        }
    }

    /**
     * SLF4J's logger factory once it is initialised. StartupPreload may be initialising SLF4J on its own thread:
     * until that has finished, getILoggerFactory() answers a substitute, and a format or level would be set on
     * nothing. SLF4J initialises holding LoggerFactory's class lock, so taking it waits for the initialisation.
     */
    @SuppressWarnings("LockOnNonEnclosingClassLiteral") // SLF4J's own initialisation lock, on purpose
    private static ILoggerFactory initialisedFactory() {
        synchronized (LoggerFactory.class) {
            return LoggerFactory.getILoggerFactory();
        }
    }

    /** Writes out whatever the appenders still hold; for the last moments before the process ends. */
    public static void flush() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.stop();
        }
    }
}
