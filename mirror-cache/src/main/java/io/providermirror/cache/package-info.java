/**
 * Storage: the blob store for archives (atomic commit, integrity on read, size-bounded eviction), metadata
 * documents, and single-flight fills that readers follow while an archive is written. Knows nothing of
 * origins, providers or HTTP.
 */
package io.providermirror.cache;
