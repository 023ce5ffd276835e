package io.providermirror.upstream.transfer;

import java.time.Duration;

/**
 * How many idle connections the client keeps for the next request to the same route, and for how long: a connection
 * is kept only after a response whose body arrived whole, at most {@code maxIdlePerRoute} of them per route and
 * {@code maxIdle} in all, each closed once it has been idle for {@code idleTimeout}. Zero {@code maxIdle} keeps none.
 */
public record ConnectionReuse(int maxIdlePerRoute, int maxIdle, Duration idleTimeout) {

    /** Four per route, 32 in all, closed after 5 s idle: long enough for the next archive of a {@code terraform init}. */
    public static final ConnectionReuse DEFAULT = new ConnectionReuse(4, 32, Duration.ofSeconds(5));

    /** No connection is kept: one per request, as before pooling. */
    public static final ConnectionReuse NONE = new ConnectionReuse(0, 0, Duration.ofSeconds(1));

    public ConnectionReuse {
        if (maxIdlePerRoute < 0) {
            throw new IllegalArgumentException("maxIdlePerRoute: " + maxIdlePerRoute + " (expected: >= 0)");
        }
        if (maxIdle < 0) {
            throw new IllegalArgumentException("maxIdle: " + maxIdle + " (expected: >= 0)");
        }
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("idleTimeout: " + idleTimeout + " (expected: > 0)");
        }
    }
}
