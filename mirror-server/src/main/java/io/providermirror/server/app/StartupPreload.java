package io.providermirror.server.app;

import io.providermirror.server.http.MirrorServer;

/**
 * Start-up on a machine with more than one core: while the main thread reads the command line and the
 * configuration, another loads what the listener will need (the native epoll and OpenSSL libraries, the
 * logging back end, the HTTP client, Bouncy Castle), so the class loading and native initialisation of both
 * overlap. Anything that fails here fails again, with its message, where it is really used.
 */
public final class StartupPreload {

    private StartupPreload() {}

    public static void start() {
        Thread thread = new Thread(StartupPreload::load, "startup-preload");
        thread.setDaemon(true);
        thread.start();
    }

    private static void load() {
        try {
            MirrorServer.preload();
            org.slf4j.LoggerFactory.getILoggerFactory();
            java.net.http.HttpClient.newBuilder();
            new org.bouncycastle.jce.provider.BouncyCastleProvider();
            Class.forName("com.github.benmanes.caffeine.cache.Caffeine");
        } catch (Throwable e) {
            // Left to the code that needs it, which reports it properly.
        }
    }
}
