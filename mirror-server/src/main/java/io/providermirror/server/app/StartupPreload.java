package io.providermirror.server.app;

import io.providermirror.server.http.MirrorServer;

/**
 * Start-up on a machine with more than one core: while the main thread reads the configuration and builds the
 * mirror, another loads what the main thread needs later, in that order (the logging back end, the native epoll and
 * OpenSSL libraries, Caffeine), so the class loading and native initialisation of both overlap. The configuration is
 * left to the main thread, which reaches it at once: binding it on both threads cost more CPU than the overlap gave
 * ({@code bench/startup.sh} with {@code BASELINE_JAR}). Anything that fails here fails again, with its message, where
 * it is really used.
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
            MirrorServer.preload();
            Class.forName("com.github.benmanes.caffeine.cache.Caffeine");
        } catch (Throwable e) {
            // Left to the code that needs it, which reports it properly.
        }
    }
}
