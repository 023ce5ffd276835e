/**
 * Talking to origins: the {@link io.providermirror.upstream.Origin} of a host (its registry, found by service
 * discovery, or a parent network mirror), the protocols behind it, the HTTP client that enforces destinations,
 * timeouts and limits, and the reading of what origins send, which {@code io.providermirror.upstream.verify} judges.
 * Knows nothing of the cache or of HTTP serving.
 */
package io.providermirror.upstream;
