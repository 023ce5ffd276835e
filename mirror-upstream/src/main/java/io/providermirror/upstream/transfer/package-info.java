/**
 * Streaming archive bodies from origins with Netty's HTTP/1.1 client: epoll and OpenSSL (BoringSSL) when they load,
 * connections to exactly the address the caller checked (kept a few seconds after a body that arrived whole, for
 * the next request with exactly the same route), and a body read from the socket only as
 * fast as its reader takes it, in the buffers it was decrypted into. The only package besides the server's front
 * end that uses Netty; it knows nothing of origins, their rules or the cache: {@code OriginHttpClient} decides where
 * a request may go and what its answer means.
 */
package io.providermirror.upstream.transfer;
