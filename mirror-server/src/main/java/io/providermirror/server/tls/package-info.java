/**
 * TLS identity of the listeners: a configured certificate and key, checked at start-up, or a generated CA
 * and server certificate kept in the cache directory.
 */
package io.providermirror.server.tls;
