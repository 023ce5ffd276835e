package io.providermirror.s3;

import io.providermirror.cache.CacheKey;
import io.providermirror.cache.RemoteStoreListener;
import io.providermirror.cache.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * One bucket as the stores see it: the client, the names of objects beneath the prefix ({@code blobs/},
 * {@code documents/}, {@code tmp/}), and every request made through {@link #call}, which times it for the
 * {@link RemoteStoreListener} and turns the SDK's failures into {@link StoreUnavailableException}s naming the bucket.
 */
public final class S3Bucket implements AutoCloseable {

    /** One request to the bucket. */
    @FunctionalInterface
    public interface Request<T> {
        T send();
    }

    private static final String BLOBS = "blobs/";
    private static final String DOCUMENTS = "documents/";
    private static final String TEMPORARY = "tmp/";

    private final S3Client client;
    private final S3Settings settings;
    private final RemoteStoreListener listener;

    public S3Bucket(S3Client client, S3Settings settings, RemoteStoreListener listener) {
        this.client = client;
        this.settings = settings;
        this.listener = listener;
    }

    /**
     * A synchronous client on the JDK's URLConnection client for {@code settings}, with {@code credentials}
     * (the SDK's default chain in production). Checksums are computed and checked only where S3 requires them:
     * the stores send Content-MD5 and check sha256 themselves, and S3-compatible servers differ on the rest.
     */
    public static S3Client client(S3Settings settings, AwsCredentialsProvider credentials) {
        S3ClientBuilder builder = S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder()
                        .connectionTimeout(Duration.ofSeconds(5))
                        .socketTimeout(Duration.ofSeconds(30)))
                .credentialsProvider(credentials)
                .region(Region.of(settings.region()))
                .forcePathStyle(settings.pathStyleAccess())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
        settings.endpoint().ifPresent(builder::endpointOverride);
        return builder.build();
    }

    public S3Client client() {
        return client;
    }

    /** The settings the bucket was opened with. */
    public S3Settings settings() {
        return settings;
    }

    public String name() {
        return settings.bucket();
    }

    RemoteStoreListener listener() {
        return listener;
    }

    /** The object of the archive at {@code key}. */
    String blobObject(CacheKey key) {
        return settings.prefix() + BLOBS + key;
    }

    /** The object of the document at {@code key}. */
    String documentObject(CacheKey key) {
        return settings.prefix() + DOCUMENTS + key;
    }

    /** Where archives' objects start. */
    String blobPrefix() {
        return settings.prefix() + BLOBS;
    }

    /** Where temporary objects live: nothing is read from there, and a lifecycle rule may expire them. */
    String temporaryPrefix() {
        return settings.prefix() + TEMPORARY;
    }

    /** A fresh temporary object. */
    String newTemporaryObject() {
        return temporaryPrefix() + UUID.randomUUID() + ".part";
    }

    /** The cache key of an archive's object, if the object is one. */
    Optional<CacheKey> blobKeyOf(String object) {
        if (!object.startsWith(blobPrefix())) {
            return Optional.empty();
        }
        try {
            return Optional.of(new CacheKey(
                    Arrays.asList(object.substring(blobPrefix().length()).split("/"))));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Every object beneath {@code prefix}, page by page. */
    List<S3Object> list(String prefix) throws StoreUnavailableException {
        List<S3Object> objects = new ArrayList<>();
        String token = null;
        do {
            String continuation = token;
            var page = call(
                    "list",
                    prefix,
                    () -> client.listObjectsV2(
                            b -> b.bucket(name()).prefix(prefix).continuationToken(continuation)));
            objects.addAll(page.contents());
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null);
        return objects;
    }

    /** Sends a request; a failure becomes a {@link StoreUnavailableException} naming the bucket and object. */
    public <T> T call(String operation, String object, Request<T> request) throws StoreUnavailableException {
        long start = System.nanoTime();
        try {
            T result = request.send();
            listener.request(operation, "ok", Duration.ofNanos(System.nanoTime() - start));
            return result;
        } catch (SdkException e) {
            listener.request(operation, "error", Duration.ofNanos(System.nanoTime() - start));
            throw failure(operation, object, e);
        }
    }

    /** As {@link #call}, with "no such object" (404) as empty. */
    <T> Optional<T> callIfPresent(String operation, String object, Request<T> request)
            throws StoreUnavailableException {
        long start = System.nanoTime();
        try {
            T result = request.send();
            listener.request(operation, "ok", Duration.ofNanos(System.nanoTime() - start));
            return Optional.of(result);
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                listener.request(operation, "missing", Duration.ofNanos(System.nanoTime() - start));
                return Optional.empty();
            }
            listener.request(operation, "error", Duration.ofNanos(System.nanoTime() - start));
            throw failure(operation, object, e);
        } catch (SdkException e) {
            listener.request(operation, "error", Duration.ofNanos(System.nanoTime() - start));
            throw failure(operation, object, e);
        }
    }

    /** A failure of a request, or of reading its response body, naming the bucket and the object. */
    StoreUnavailableException failure(String operation, String object, Exception cause) {
        String reason = cause instanceof S3Exception s3
                ? "HTTP " + s3.statusCode() + " " + s3.awsErrorDetails().errorCode()
                : cause.getMessage();
        return new StoreUnavailableException(
                "S3 bucket '" + settings.bucket() + "': " + operation + " " + object + " failed: " + reason, cause);
    }

    @Override
    public void close() {
        client.close();
    }
}
