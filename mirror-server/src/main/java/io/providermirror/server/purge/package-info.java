/**
 * Removing things from the cache on purpose: {@link io.providermirror.server.purge.CachePurge} (an operator's purge
 * of a provider, a provider version or some of its platforms, or a module version) and
 * {@link io.providermirror.server.purge.Retention} (archives no client requested for {@code cache.retention.unusedFor}).
 * Each removal is logged, recorded in the transparency log, and forgotten by the running mirror's memory.
 */
package io.providermirror.server.purge;
