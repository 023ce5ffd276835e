/**
 * Talking to origins: service discovery, the provider registry protocol and parent network mirrors, the
 * HTTP client that enforces destinations, timeouts and limits, and the verification of what origins send
 * (signed SHA256SUMS, OpenPGP, {@code h1:}/{@code zh:}). Knows nothing of the cache or of HTTP serving.
 */
package io.providermirror.upstream;
