package io.providermirror.upstream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

/**
 * Clients towards test origins. Their deadlines are generous ({@link #GENEROUS}): a test that is not about a
 * deadline must not fail with a timeout because the machine is busy (a loaded 2-core machine has taken 3.5 s for a
 * WireMock answer). A test about a deadline passes its own short one to an origin that stalls far longer.
 */
final class OriginClients {

    /** Connect, request and read deadlines for tests that are not about deadlines. */
    static final Duration GENEROUS = Duration.ofSeconds(60);

    static final Executor EXECUTOR = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "test-origin");
        thread.setDaemon(true);
        return thread;
    });

    /** The executor's lanes, as wide as the mirror's by default (max(16, maxConcurrentFills)). */
    static final HostLanes LANES = new HostLanes(EXECUTOR, 64, 1000);

    private OriginClients() {}

    /** A client with {@link #GENEROUS} deadlines. */
    static OriginHttpClient http(Path extraCa) {
        return http(extraCa, GENEROUS);
    }

    static OriginHttpClient http(Path extraCa, Duration requestTimeout) {
        try {
            return trusting(OriginTrust.of(extraCa), requestTimeout);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static OriginHttpClient trusting(OriginTrust trust, Duration requestTimeout) {
        return new OriginHttpClient(new OriginHttpClient.Settings(
                GENEROUS,
                requestTimeout,
                GENEROUS,
                trust,
                "provider-mirror-test",
                3,
                64 * 1024,
                new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(50)),
                false,
                (origin, host, port) -> host.equals("127.0.0.1") || host.equals("localhost")));
    }
}
