package io.providermirror.server.app;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.FillLeases;

/**
 * The cache as the wiring hands it on: the archive store, the document store, and the leases that decide which
 * instance sharing them fetches a cold archive (this one always, without a shared store).
 */
record CacheStores(BlobStore blobs, DocumentStore documents, FillLeases fillLeases) {}
