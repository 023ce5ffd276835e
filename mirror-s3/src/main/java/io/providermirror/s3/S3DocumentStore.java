package io.providermirror.s3;

import io.providermirror.cache.CacheKey;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.StoredDocument;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * A {@link DocumentStore} of objects beneath {@code <prefix>documents/}. A PUT replaces an object whole, so a
 * reader sees the old document or the new one, never a mix. When a document was stored is kept in the object's
 * metadata ({@code stored-at}, from the store's clock) rather than taken from the server's clock.
 */
public final class S3DocumentStore implements DocumentStore {

    static final String STORED_AT = "stored-at";

    private final S3Bucket bucket;
    private final Clock clock;

    public S3DocumentStore(S3Bucket bucket, Clock clock) {
        this.bucket = bucket;
        this.clock = clock;
    }

    @Override
    public Optional<StoredDocument> read(CacheKey key) throws IOException {
        String object = bucket.documentObject(key);
        Optional<ResponseBytes<GetObjectResponse>> found = bucket.callIfPresent(
                "get",
                object,
                () -> bucket.client()
                        .getObjectAsBytes(b -> b.bucket(bucket.name()).key(object)));
        if (found.isEmpty()) {
            return Optional.empty();
        }
        GetObjectResponse response = found.get().response();
        byte[] content = found.get().asByteArray();
        if (response.contentLength() != null && response.contentLength() != content.length) {
            throw new IOException("S3 bucket '" + bucket.name() + "': document " + object + " has " + content.length
                    + " bytes instead of " + response.contentLength());
        }
        return Optional.of(new StoredDocument(content, storedAt(response)));
    }

    private static Instant storedAt(GetObjectResponse response) {
        String stored = response.metadata().get(STORED_AT);
        if (stored != null) {
            try {
                return Instant.ofEpochMilli(Long.parseLong(stored));
            } catch (NumberFormatException e) {
                // an object written by something else: the server's time will do
            }
        }
        return response.lastModified();
    }

    @Override
    public List<CacheKey> list(CacheKey folder) throws IOException {
        String prefix = bucket.documentObject(folder) + "/";
        List<CacheKey> keys = new ArrayList<>();
        for (var object : bucket.list(prefix)) {
            String name = object.key().substring(prefix.length());
            if (!name.isEmpty() && !name.contains("/")) {
                List<String> segments = new ArrayList<>(folder.segments());
                segments.add(name);
                try {
                    keys.add(new CacheKey(segments));
                } catch (IllegalArgumentException e) {
                    // an object written by something else, under a name no document has
                }
            }
        }
        return keys;
    }

    @Override
    public StoredDocument write(CacheKey key, byte[] content) throws IOException {
        String object = bucket.documentObject(key);
        Instant now = clock.instant();
        bucket.call(
                "put",
                object,
                () -> bucket.client()
                        .putObject(
                                b -> b.bucket(bucket.name())
                                        .key(object)
                                        .contentMD5(Md5.base64(content))
                                        .metadata(Map.of(STORED_AT, Long.toString(now.toEpochMilli()))),
                                RequestBody.fromBytes(content)));
        return new StoredDocument(content.clone(), now);
    }

    @Override
    public void delete(CacheKey key) throws IOException {
        String object = bucket.documentObject(key);
        bucket.call(
                "delete",
                object,
                () -> bucket.client().deleteObject(b -> b.bucket(bucket.name()).key(object)));
    }
}
