package io.providermirror.cache;

import java.net.URI;

/**
 * Where a client may read a committed blob straight from the store, for a short while (an S3 presigned GET), with
 * the blob as the store recorded it at its commit: what a mirror answers with when the bytes should not pass
 * through it.
 */
public record BlobRedirect(URI location, StoredBlob blob) {}
