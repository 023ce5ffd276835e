package io.providermirror.server.http;

import java.time.Duration;

/**
 * How long a client connection may take: {@code requestReadTimeout} to deliver each request's head,
 * {@code idleTimeout} with no traffic either way (a client that stops reading a response is closed after it).
 */
public record ConnectionLimits(Duration requestReadTimeout, Duration idleTimeout) {
}
