/**
 * Talking to origins: the {@link io.providermirror.upstream.Origin} of a host (its registry, found by service
 * discovery, or a parent network mirror), the protocols behind it, the HTTP client that enforces destinations,
 * timeouts and limits, and the verification of what origins send (signed SHA256SUMS, OpenPGP, {@code h1:}/{@code zh:}).
 * Knows nothing of the cache or of HTTP serving.
 */
package io.providermirror.upstream;
