package io.providermirror.s3;

import io.providermirror.cache.CacheKey;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.FileDocumentStore;
import io.providermirror.cache.RemoteStoreListener;
import io.providermirror.cache.StoreUnavailableException;
import io.providermirror.cache.StoredDocument;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bucket's documents, with a local copy of each one this instance wrote or read kept in its cache directory:
 * the bucket is read first, since it is the shared truth (another instance may have refreshed a version list), and
 * the local copy only when the bucket does not answer ({@link StoreUnavailableException}). So an instance whose
 * metadata left its memory still answers for what it served before while the bucket is down. A copy keeps the time
 * the document was stored in the bucket, which its freshness is judged by. Writes go to the bucket first; a
 * failed one is not copied, so a copy is always something the bucket held.
 */
public final class LocalCopyDocumentStore implements DocumentStore {

    private static final Logger LOG = LoggerFactory.getLogger(LocalCopyDocumentStore.class);

    private final S3DocumentStore bucket;
    private final FileDocumentStore copies;
    private final RemoteStoreListener listener;
    /** Copies are being read because the bucket does not answer: logged once when it starts and when it ends. */
    private final AtomicBoolean readingCopies = new AtomicBoolean();

    public LocalCopyDocumentStore(S3DocumentStore bucket, FileDocumentStore copies, RemoteStoreListener listener) {
        this.bucket = bucket;
        this.copies = copies;
        this.listener = listener;
    }

    @Override
    public Optional<StoredDocument> read(CacheKey key) throws IOException {
        Optional<StoredDocument> found;
        try {
            found = bucket.read(key);
        } catch (StoreUnavailableException e) {
            Optional<StoredDocument> copy = copies.read(key);
            if (copy.isEmpty()) {
                throw e;
            }
            listener.localCopyRead();
            if (readingCopies.compareAndSet(false, true)) {
                LOG.warn(
                        "the bucket does not answer; metadata documents are read from this instance's local copies "
                                + "until it does ({})",
                        e.getMessage());
            } else {
                LOG.debug("read the local copy of {}: {}", key, e.getMessage());
            }
            return copy;
        }
        answered();
        if (found.isPresent()) {
            keepCopy(key, found.get());
        }
        return found;
    }

    /** The bucket's list: the local copies name only what this instance wrote or read, not the fleet's documents. */
    @Override
    public List<CacheKey> list(CacheKey folder) throws IOException {
        List<CacheKey> keys = bucket.list(folder);
        answered();
        return keys;
    }

    @Override
    public StoredDocument write(CacheKey key, byte[] content) throws IOException {
        StoredDocument stored = bucket.write(key, content);
        answered();
        keepCopy(key, stored);
        return stored;
    }

    /** Removes the document from the bucket, then its local copy (a copy alone is never read while the bucket answers). */
    @Override
    public void delete(CacheKey key) throws IOException {
        bucket.delete(key);
        answered();
        copies.delete(key);
    }

    private void answered() {
        if (readingCopies.compareAndSet(true, false)) {
            LOG.info("the bucket answers again; metadata documents are read from it");
        }
    }

    /** Makes the local copy of {@code key} the document the bucket holds, unless it already is. */
    private void keepCopy(CacheKey key, StoredDocument document) {
        try {
            Optional<StoredDocument> copy = copies.read(key);
            if (copy.isPresent()
                    && copy.get().storedAt().equals(document.storedAt())
                    && Arrays.equals(copy.get().content(), document.content())) {
                return;
            }
            copies.write(key, document.content(), document.storedAt());
        } catch (IOException e) {
            // The bucket holds the document; only the fallback for an outage is missing.
            LOG.warn("cannot keep a local copy of {}: {}", key, e.getMessage());
        }
    }
}
