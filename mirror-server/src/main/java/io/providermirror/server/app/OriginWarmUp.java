package io.providermirror.server.app;

import io.providermirror.upstream.OriginHttpClient;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What start-up leaves for later, made in the background as soon as the listeners answer, so that the first
 * request reaching an origin does not wait for it: the trust towards origins (the JDK's CA store, a TLS context) and
 * the clients for documents and archives ({@link OriginHttpClient#prepare()}). Start-up does not wait for it; a
 * request that needs an origin before it is done waits for the same single making (never a second one). A failure
 * is left for that request, which reports it.
 */
final class OriginWarmUp {

    private static final Logger LOG = LoggerFactory.getLogger(OriginWarmUp.class);

    private OriginWarmUp() {}

    /** Starts making {@code http}'s clients on a daemon thread of its own; the future completes when they are made. */
    static CompletableFuture<Void> start(OriginHttpClient http) {
        CompletableFuture<Void> prepared = new CompletableFuture<>();
        Thread thread = new Thread(
                () -> {
                    long start = System.nanoTime();
                    try {
                        http.prepare();
                        LOG.debug(
                                "the clients towards origins are ready ({} ms after the listeners)",
                                (System.nanoTime() - start) / 1_000_000);
                        prepared.complete(null);
                    } catch (Exception e) {
                        // The first request to an origin makes them again and reports what is wrong.
                        LOG.debug(
                                "making the clients towards origins ahead of the first request failed: {}",
                                e.toString());
                        prepared.completeExceptionally(e);
                    }
                },
                "origin-warm-up");
        thread.setDaemon(true);
        thread.start();
        return prepared;
    }
}
