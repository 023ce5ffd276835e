package io.providermirror.server.bundle;

import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a bundle holds once read and checked against its manifest: its documents in memory and its archives
 * staged in the blob store, not yet committed. Closing it drops every archive not committed by then, so a
 * refused bundle leaves nothing behind.
 */
final class BundleContents implements AutoCloseable {

    /** An archive written to a temporary file of the store, committed only when everything verified. */
    record StagedArchive(BlobWrite write, String sha256, long size) {}

    private final BundleManifest manifest;
    private final BundleDocuments documents = new BundleDocuments();
    private final Map<CacheKey, StagedArchive> archives = new LinkedHashMap<>();

    BundleContents(BundleManifest manifest) {
        this.manifest = manifest;
    }

    BundleManifest manifest() {
        return manifest;
    }

    BundleDocuments documents() {
        return documents;
    }

    Map<CacheKey, StagedArchive> archives() {
        return archives;
    }

    @Override
    public void close() {
        // Committed writes ignore this; the others leave nothing behind.
        archives.values().forEach(staged -> staged.write().abort());
    }
}
