package io.providermirror.s3;

import io.providermirror.cache.BlobRedirect;
import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobSummary;
import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.FileBlobStore;
import io.providermirror.cache.OpenBlob;
import io.providermirror.cache.StoreUnavailableException;
import io.providermirror.cache.StoredBlob;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A {@link BlobStore} whose archives live in an S3-compatible bucket, the cache of record shared by several
 * instances, behind a bounded local disk tier ({@link FileBlobStore}) that holds the hot ones. A warm archive is
 * opened from the tier as a file channel (zero-copy, no request to the bucket); a cold one is copied from the
 * bucket into the tier, its size checked against the size recorded with the object and its sha256 computed on the
 * way, and served from there; an object that does not match is refused and removed from the bucket. A write goes
 * through the tier and reaches the bucket on commit ({@link S3BlobWrite}, {@link S3Uploads}). The bucket is kept
 * under {@code maxBytes} by evicting the archives least recently used on this instance ({@link BucketIndex}); the
 * index is rebuilt from a listing of the bucket at start-up and by {@link #list()}.
 */
public final class S3BlobStore implements BlobStore {

    /** Temporary objects older than this are leftovers of a crashed instance, removed at start-up. */
    static final Duration TEMPORARY_OBJECT_AGE = Duration.ofHours(1);

    private static final Logger LOG = LoggerFactory.getLogger(S3BlobStore.class);

    private final S3Bucket bucket;
    private final FileBlobStore tier;
    private final S3Uploads uploads;
    private final BucketIndex index;
    private final Clock clock;
    private final Optional<S3Redirects> redirects;
    /** The archives being fetched from the bucket into the local tier, each with the lock its readers wait on. */
    private final ConcurrentHashMap<CacheKey, Object> fetches = new ConcurrentHashMap<>();

    /**
     * Opens the store: lists the bucket's archives and removes temporary objects older than an hour.
     *
     * @param tier the local disk tier, bounded by its own size
     * @param maxBytes the bound on the archives in the bucket
     * @param partBytes the largest archive uploaded in one request, and the part size of larger ones (at least 5 MiB
     *     for S3)
     */
    public S3BlobStore(S3Bucket bucket, FileBlobStore tier, long maxBytes, int partBytes, Clock clock)
            throws IOException {
        this(bucket, tier, maxBytes, partBytes, clock, Optional.empty());
    }

    /**
     * As above, handing out presigned URLs of committed archives ({@link #redirect}) when {@code redirects} is
     * present.
     */
    public S3BlobStore(
            S3Bucket bucket,
            FileBlobStore tier,
            long maxBytes,
            int partBytes,
            Clock clock,
            Optional<S3Redirects> redirects)
            throws IOException {
        this.redirects = redirects;
        this.bucket = bucket;
        this.tier = tier;
        this.uploads = new S3Uploads(bucket, partBytes);
        this.index = new BucketIndex(maxBytes, clock);
        this.clock = clock;
        removeTemporaryObjects();
        List<BlobSummary> listed = list();
        LOG.info("archive cache in S3 bucket '{}': {} archives, {} bytes", bucket.name(), listed.size(), totalBytes());
        evict(null);
    }

    private void removeTemporaryObjects() throws IOException {
        Instant before = clock.instant().minus(TEMPORARY_OBJECT_AGE);
        for (S3Object object : bucket.list(bucket.temporaryPrefix())) {
            if (object.lastModified().isBefore(before)) {
                deleteObject(object.key());
                LOG.info("removed temporary object {} left by an earlier upload", object.key());
            }
        }
    }

    /** The local tier's blob, else the object's size and sha256 as recorded in the bucket (one HEAD). */
    @Override
    public Optional<StoredBlob> find(CacheKey key) throws IOException {
        Optional<StoredBlob> local = tier.find(key);
        if (local.isPresent()) {
            return local;
        }
        String object = bucket.blobObject(key);
        Optional<HeadObjectResponse> head = bucket.callIfPresent(
                "head",
                object,
                () -> bucket.client().headObject(b -> b.bucket(bucket.name()).key(object)));
        if (head.isEmpty()) {
            index.remove(key);
            return Optional.empty();
        }
        return recorded(key, head.get().metadata(), head.get().lastModified());
    }

    /** The local tier's blob only: an archive this instance committed is there, and no request goes to the bucket. */
    @Override
    public Optional<StoredBlob> findLocal(CacheKey key) throws IOException {
        return tier.find(key);
    }

    /** Whether archive requests are answered with presigned URLs ({@code cache.s3.redirectArchives}). */
    @Override
    public boolean redirects() {
        return redirects.isPresent();
    }

    /**
     * A presigned GET URL of the archive's object, when the bucket holds it committed (one HEAD: the object must
     * exist with its recorded sha256 and size, as the commit left it); the object counts as just used for eviction.
     * Empty when redirects are off or the bucket does not hold the archive, so the caller serves it itself.
     */
    @Override
    public Optional<BlobRedirect> redirect(CacheKey key) throws IOException {
        if (redirects.isEmpty()) {
            return Optional.empty();
        }
        String object = bucket.blobObject(key);
        Optional<HeadObjectResponse> head = bucket.callIfPresent(
                "head",
                object,
                () -> bucket.client().headObject(b -> b.bucket(bucket.name()).key(object)));
        if (head.isEmpty()) {
            index.remove(key);
            return Optional.empty();
        }
        Optional<StoredBlob> recorded =
                recorded(key, head.get().metadata(), head.get().lastModified());
        if (recorded.isEmpty()
                || head.get().contentLength() == null
                || head.get().contentLength() != recorded.get().size()) {
            // Not as a commit leaves an object: reading it through the mirror checks it and removes it.
            return Optional.empty();
        }
        index.put(new BlobSummary(key, recorded.get().size(), recorded.get().committedAt()));
        return Optional.of(new BlobRedirect(redirects.get().presign(object), recorded.get()));
    }

    static Optional<StoredBlob> recorded(CacheKey key, java.util.Map<String, String> metadata, Instant at) {
        String sha256 = metadata.get(S3Uploads.SHA256);
        String size = metadata.get(S3Uploads.SIZE);
        if (sha256 == null || size == null || !sha256.matches("[0-9a-f]{64}")) {
            return Optional.empty();
        }
        try {
            return Optional.of(new StoredBlob(key, Long.parseLong(size), sha256, at));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * From the local tier when it holds the archive, else fetched from the bucket into it and checked; readers of
     * one archive that is being fetched wait for that fetch rather than each making their own.
     */
    @Override
    public Optional<OpenBlob> open(CacheKey key) throws IOException {
        Optional<OpenBlob> local = fromTier(key);
        if (local.isPresent()) {
            return local;
        }
        Object fetch = fetches.computeIfAbsent(key, k -> new Object());
        try {
            synchronized (fetch) {
                local = fromTier(key);
                return local.isPresent() ? local : fetch(key);
            }
        } finally {
            fetches.remove(key, fetch);
        }
    }

    private Optional<OpenBlob> fromTier(CacheKey key) throws IOException {
        Optional<OpenBlob> local = tier.open(key);
        if (local.isPresent()) {
            bucket.listener().localTierHit();
            index.touch(key);
        }
        return local;
    }

    /** The local tier's memo of a verified open: a warm archive without a request to the bucket. */
    @Override
    public Optional<OpenBlob> openVerified(CacheKey key) throws IOException {
        Optional<OpenBlob> local = tier.openVerified(key);
        if (local.isPresent()) {
            bucket.listener().localTierHit();
            index.touch(key);
        }
        return local;
    }

    private Optional<OpenBlob> fetch(CacheKey key) throws IOException {
        String object = bucket.blobObject(key);
        Optional<ResponseInputStream<GetObjectResponse>> found = bucket.callIfPresent(
                "get",
                object,
                () -> bucket.client().getObject(b -> b.bucket(bucket.name()).key(object)));
        if (found.isEmpty()) {
            index.remove(key);
            return Optional.empty();
        }
        try (ResponseInputStream<GetObjectResponse> in = found.get()) {
            GetObjectResponse response = in.response();
            Optional<StoredBlob> recorded = recorded(key, response.metadata(), response.lastModified());
            if (recorded.isEmpty()) {
                return refuse(key, "has no valid sha256 and size in its metadata");
            }
            StoredBlob expected = recorded.get();
            if (response.contentLength() == null || response.contentLength() != expected.size()) {
                return refuse(key, "has " + response.contentLength() + " bytes instead of " + expected.size());
            }
            return copyToTier(key, in, expected);
        }
    }

    private Optional<OpenBlob> copyToTier(CacheKey key, InputStream in, StoredBlob expected) throws IOException {
        BlobWrite write = tier.create(key);
        try {
            MessageDigest digest = Sha256s.digest();
            byte[] buffer = new byte[64 * 1024];
            long copied = 0;
            int read;
            while (copied <= expected.size() && (read = readFrom(key, in, buffer)) >= 0) {
                digest.update(buffer, 0, read);
                write.write(ByteBuffer.wrap(buffer, 0, read));
                copied += read;
            }
            String actual = HexFormat.of().formatHex(digest.digest());
            if (copied != expected.size() || !actual.equals(expected.sha256())) {
                write.abort();
                return refuse(
                        key,
                        "holds " + copied + " bytes with sha256 " + actual + " instead of " + expected.size()
                                + " bytes with sha256 " + expected.sha256());
            }
            SeekableByteChannel early = write.openReader();
            boolean handedOver = false;
            try {
                StoredBlob local = write.commit(expected.sha256());
                index.put(new BlobSummary(key, expected.size(), expected.committedAt()));
                Optional<OpenBlob> opened = tier.open(key);
                if (opened.isPresent()) {
                    return opened;
                }
                // the tier evicted it at once (an archive larger than the tier): the channel opened before reads it
                handedOver = true;
                return Optional.of(new OpenBlob(local, early, () -> {}));
            } finally {
                if (!handedOver) {
                    early.close();
                }
            }
        } finally {
            write.abort();
        }
    }

    private int readFrom(CacheKey key, InputStream in, byte[] buffer) throws StoreUnavailableException {
        try {
            return in.read(buffer);
        } catch (IOException e) {
            throw bucket.failure("get", bucket.blobObject(key), e);
        }
    }

    private Optional<OpenBlob> refuse(CacheKey key, String problem) throws IOException {
        LOG.error(
                "cache entry {} in S3 bucket '{}' {}; removing it so it is fetched again", key, bucket.name(), problem);
        remove(key);
        return Optional.empty();
    }

    /** Starts a write through the local tier; the bucket receives the archive on commit. */
    @Override
    public BlobWrite create(CacheKey key) throws IOException {
        return new S3BlobWrite(key, tier.create(key), uploads, this::committed);
    }

    private void committed(StoredBlob blob) {
        index.put(new BlobSummary(blob.key(), blob.size(), blob.committedAt()));
        evict(blob.key());
    }

    private void evict(CacheKey keep) {
        for (CacheKey victim : index.evictOverBound(keep)) {
            try {
                deleteObject(bucket.blobObject(victim));
                tier.remove(victim);
                LOG.info(
                        "evicted {} from S3 bucket '{}' to keep the archive cache under its bound",
                        victim,
                        bucket.name());
            } catch (IOException e) {
                LOG.warn("cannot evict {}: {}", victim, e.getMessage());
            }
        }
    }

    /**
     * Reads every archive in the bucket and checks it against its recorded size and sha256 (streamed, never held in
     * memory), removing each that does not match ({@code --verify-cache}). The local tier is checked on its own.
     */
    public FileBlobStore.VerificationReport verifyAll() throws IOException {
        return new BucketVerification(bucket).run(this::remove);
    }

    @Override
    public void remove(CacheKey key) throws IOException {
        index.remove(key);
        tier.remove(key);
        deleteObject(bucket.blobObject(key));
    }

    /** Drops the local tier's copies (and this instance's index entries) of what {@code which} selects. */
    @Override
    public void dropLocalCopies(java.util.function.Predicate<CacheKey> which) throws IOException {
        for (BlobSummary local : tier.list()) {
            if (which.test(local.key())) {
                tier.remove(local.key());
                index.remove(local.key());
            }
        }
    }

    private void deleteObject(String object) throws IOException {
        bucket.call(
                "delete",
                object,
                () -> bucket.client().deleteObject(b -> b.bucket(bucket.name()).key(object)));
    }

    @Override
    public long totalBytes() {
        return index.totalBytes();
    }

    @Override
    public int count() {
        return index.count();
    }

    @Override
    public long evictions() {
        return index.evictions();
    }

    @Override
    public long heldBytes() { // what the local tier holds: the bucket's archives are read through it
        return tier.heldBytes();
    }

    /**
     * Every archive in the bucket, from a listing (paginated), which also brings this instance's index up to date
     * with the other instances' commits; each last used as the index says. Else what the index knew.
     */
    @Override
    public List<BlobSummary> list() {
        List<BlobSummary> listed = new ArrayList<>();
        try {
            for (S3Object object : bucket.list(bucket.blobPrefix())) {
                bucket.blobKeyOf(object.key())
                        .ifPresent(key -> listed.add(new BlobSummary(key, object.size(), object.lastModified())));
            }
        } catch (IOException e) {
            LOG.warn("cannot list S3 bucket '{}': {}", bucket.name(), e.getMessage());
            return index.summaries();
        }
        index.replaceWith(listed);
        return index.summaries(); // as last used here, if later than uploaded
    }
}
