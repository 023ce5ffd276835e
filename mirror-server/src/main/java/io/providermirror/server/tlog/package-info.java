/**
 * The mirror's transparency log: every decision that let something in or kept it out, appended as a JSON entry to
 * an RFC 6962 Merkle tree stored as C2SP {@code tlog-tiles} and signed as C2SP {@code tlog-checkpoint} notes, so
 * anyone holding the log's public key can check that an entry is in it and that it only ever grew. Plain Java over
 * the cache's {@link io.providermirror.cache.DocumentStore}; no Netty.
 */
package io.providermirror.server.tlog;
