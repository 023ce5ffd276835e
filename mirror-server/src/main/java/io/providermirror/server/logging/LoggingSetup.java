package io.providermirror.server.logging;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import io.providermirror.server.config.LoggingConfig;
import java.net.URL;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * Applies {@code logging.format}: the built-in {@code logback.xml} writes text lines; {@code json} switches
 * to {@code logback-json.xml}, one JSON object per line. A logging configuration of the operator's own
 * ({@code -Dlogback.configurationFile}) is left alone.
 */
public final class LoggingSetup {

    private LoggingSetup() {}

    public static void apply(LoggingConfig config) {
        if (!config.json() || System.getProperty("logback.configurationFile") != null) {
            return;
        }
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        URL json = LoggingSetup.class.getResource("/logback-json.xml");
        if (!(factory instanceof LoggerContext context) || json == null) {
            return;
        }
        context.reset();
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        try {
            configurator.doConfigure(json);
        } catch (JoranException e) {
            throw new IllegalStateException("cannot apply logging.format json: " + e.getMessage(), e);
        }
    }

    /**
     * For the commands (warm, export, import), whose output is for people: the log shows warnings and errors
     * only, on stderr, unless {@code verbose}.
     */
    @SuppressWarnings("LockOnNonEnclosingClassLiteral") // SLF4J's own initialisation lock, on purpose (below)
    public static void forCommand(boolean verbose) {
        if (verbose) {
            return;
        }
        ILoggerFactory factory;
        // StartupPreload may be initialising SLF4J on its own thread: until that has finished, getILoggerFactory()
        // answers a substitute, and the level would be set on nothing. SLF4J initialises holding LoggerFactory's
        // class lock, so taking it waits for the initialisation to finish.
        synchronized (LoggerFactory.class) {
            factory = LoggerFactory.getILoggerFactory();
        }
        if (factory instanceof LoggerContext context) {
            context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(ch.qos.logback.classic.Level.WARN);
        }
    }

    /** Writes out whatever the appenders still hold; for the last moments before the process ends. */
    public static void flush() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.stop();
        }
    }
}
