package io.providermirror.s3;

import io.providermirror.cache.CacheKey;
import io.providermirror.cache.FileBlobStore;
import io.providermirror.cache.StoreUnavailableException;
import io.providermirror.cache.StoredBlob;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@code --verify-cache} for the bucket: every archive object is read whole (streamed through a digest, never
 * held in memory) and compared with the size and sha256 its commit recorded in the object's metadata. An object
 * that differs, or lacks that metadata, is removed, so the next request fetches the archive from its origin again.
 */
final class BucketVerification {

    /** Removes an archive that failed the check. */
    @FunctionalInterface
    interface Removal {
        void remove(CacheKey key) throws IOException;
    }

    private static final Logger LOG = LoggerFactory.getLogger(BucketVerification.class);

    private final S3Bucket bucket;

    BucketVerification(S3Bucket bucket) {
        this.bucket = bucket;
    }

    /** Checks every archive in the bucket; a bucket that stops answering ends the run with its failure. */
    FileBlobStore.VerificationReport run(Removal removal) throws IOException {
        int checked = 0;
        List<CacheKey> removed = new ArrayList<>();
        for (S3Object object : bucket.list(bucket.blobPrefix())) {
            Optional<CacheKey> key = bucket.blobKeyOf(object.key());
            if (key.isEmpty()) {
                continue;
            }
            checked++;
            Optional<String> problem = check(key.get(), object.key());
            if (problem.isPresent()) {
                LOG.error(
                        "--verify-cache: {} in S3 bucket '{}' {}; removing it so it is fetched again",
                        key.get(),
                        bucket.name(),
                        problem.get());
                removal.remove(key.get());
                removed.add(key.get());
            }
        }
        return new FileBlobStore.VerificationReport(checked, removed);
    }

    /** What is wrong with the object, if anything; empty when it is gone (nothing left to remove). */
    private Optional<String> check(CacheKey key, String object) throws IOException {
        Optional<ResponseInputStream<GetObjectResponse>> found = bucket.callIfPresent(
                "get",
                object,
                () -> bucket.client().getObject(b -> b.bucket(bucket.name()).key(object)));
        if (found.isEmpty()) {
            return Optional.empty();
        }
        try (ResponseInputStream<GetObjectResponse> in = found.get()) {
            GetObjectResponse response = in.response();
            Optional<StoredBlob> recorded = S3BlobStore.recorded(key, response.metadata(), response.lastModified());
            if (recorded.isEmpty()) {
                return Optional.of("has no valid sha256 and size in its metadata");
            }
            MessageDigest digest = Sha256s.digest();
            long size = digest(in, digest, object);
            String sha256 = HexFormat.of().formatHex(digest.digest());
            if (size != recorded.get().size() || !sha256.equals(recorded.get().sha256())) {
                return Optional.of("holds " + size + " bytes with sha256 " + sha256 + " instead of "
                        + recorded.get().size() + " bytes with sha256 "
                        + recorded.get().sha256());
            }
            return Optional.empty();
        }
    }

    private long digest(InputStream in, MessageDigest digest, String object) throws StoreUnavailableException {
        byte[] buffer = new byte[64 * 1024];
        long size = 0;
        try {
            int read;
            while ((read = in.read(buffer)) >= 0) {
                digest.update(buffer, 0, read);
                size += read;
            }
        } catch (IOException e) {
            throw bucket.failure("get", object, e);
        }
        return size;
    }
}
