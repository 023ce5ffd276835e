package io.providermirror.upstream.git;

import io.providermirror.upstream.InternalAuthorities;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.OriginTrust;
import io.providermirror.upstream.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The mirror's origin client whose destination check git fetches go through, for one origin on loopback. */
final class GitHttps {

    /** The module registry host the fetches are made for. */
    static final String ORIGIN = "registry.test";

    private GitHttps() {}

    /** A client that lets {@link #ORIGIN} use exactly {@code authorities} (host:port) on loopback. */
    static OriginHttpClient client(String... authorities) throws java.io.IOException {
        return new OriginHttpClient(new OriginHttpClient.Settings(
                Duration.ofSeconds(2),
                Duration.ofSeconds(5),
                Duration.ofSeconds(2),
                OriginTrust.of(null),
                "test",
                3,
                1024,
                new RetryPolicy(1, Duration.ofMillis(1), Duration.ofMillis(5)),
                false,
                InternalAuthorities.of(Map.of(ORIGIN, List.of(authorities)))));
    }
}
