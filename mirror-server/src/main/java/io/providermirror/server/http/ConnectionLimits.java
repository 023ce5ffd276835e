package io.providermirror.server.http;

import java.time.Duration;

/**
 * How long a client connection may take: {@code requestReadTimeout} to deliver each request (its head, and its
 * body if it has one), {@code idleTimeout} with no traffic either way (a client that stops reading a response is
 * closed after it);
 * and how many connections a listener holds at once ({@code maxConnections}): more are closed as they are
 * accepted, so a flood of sockets cannot exhaust the process's file descriptors.
 */
public record ConnectionLimits(Duration requestReadTimeout, Duration idleTimeout, int maxConnections) {

    public ConnectionLimits {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections: " + maxConnections + " (expected: > 0)");
        }
    }
}
