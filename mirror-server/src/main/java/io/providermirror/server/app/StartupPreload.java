package io.providermirror.server.app;

import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.server.http.MirrorServer;
import java.util.Map;

/**
 * Start-up on a machine with more than one core: while the main thread reads the command line and the
 * configuration, another loads what comes next, in the order the main thread needs it (the logging back
 * end, the configuration binding, the native epoll and OpenSSL libraries, Caffeine), so the class
 * loading and native initialisation of both overlap. Anything that fails here fails again, with its message,
 * where it is really used.
 */
public final class StartupPreload {

    private StartupPreload() {}

    /** Starts preloading; for starting the mirror, not for its commands (warm, export, healthcheck...). */
    public static void start() {
        Thread thread = new Thread(StartupPreload::load, "startup-preload");
        thread.setDaemon(true);
        thread.start();
    }

    private static void load() {
        try {
            // First, before the main thread logs: a logging call while SLF4J initialises is held back and
            // replayed with a warning.
            org.slf4j.LoggerFactory.getILoggerFactory();
        } catch (RuntimeException | LinkageError e) {
            // Left to the code that logs, which reports it.
        }
        try {
            // The defaults, bound as the main thread will bind its configuration: Jackson and the records.
            new ConfigLoader(Map.of()).load(null);
        } catch (ConfigException | RuntimeException e) {
            // The main thread reads the real configuration and reports what is wrong with it.
        }
        try {
            MirrorServer.preload();
            Class.forName("com.github.benmanes.caffeine.cache.Caffeine");
        } catch (Throwable e) {
            // Left to the code that needs it, which reports it properly.
        }
    }
}
