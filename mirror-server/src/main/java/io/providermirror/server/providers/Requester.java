package io.providermirror.server.providers;

/**
 * Who asks the core's caches for a document: a client's request is counted in the cache-lookup metrics
 * ({@code mirror_cache_lookups_total}); the mirror asking itself (for an archive's release, say) is not.
 */
enum Requester {
    CLIENT,
    MIRROR
}
