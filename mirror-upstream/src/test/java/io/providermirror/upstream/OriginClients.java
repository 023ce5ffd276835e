package io.providermirror.upstream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

/** Clients towards test origins, with short timeouts. */
final class OriginClients {

    static final Executor EXECUTOR = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "test-origin");
        thread.setDaemon(true);
        return thread;
    });

    private OriginClients() {}

    static OriginHttpClient http(Path extraCa, Duration requestTimeout) {
        try {
            return trusting(OriginTrust.of(extraCa), requestTimeout);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static OriginHttpClient trusting(OriginTrust trust, Duration requestTimeout) {
        return new OriginHttpClient(new OriginHttpClient.Settings(
                Duration.ofSeconds(2),
                requestTimeout,
                Duration.ofSeconds(2),
                trust,
                "provider-mirror-test",
                3,
                64 * 1024,
                new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(50)),
                false,
                (origin, host, port) -> host.equals("127.0.0.1") || host.equals("localhost")));
    }
}
