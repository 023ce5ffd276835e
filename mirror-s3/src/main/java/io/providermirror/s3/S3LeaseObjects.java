package io.providermirror.s3;

import io.providermirror.cache.LeaseObjects;
import io.providermirror.cache.StoreUnavailableException;
import java.time.Duration;
import java.util.Optional;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Lease objects in the bucket, under {@code leases/} beneath the prefix, written with S3's conditions: a create
 * with {@code If-None-Match: *}, a replace with {@code If-Match}. A refused condition (412, or 409 when S3 saw
 * two conditional writes of one object at once) is an answer, not a failure; so is a write that could not be sent,
 * as {@link io.providermirror.cache.ConditionalFillLeases} reads every lease back to learn whose it is.
 */
public final class S3LeaseObjects implements LeaseObjects {

    /**
     * A lease request is a few hundred bytes: one that hangs (a store that dropped it, as S3Proxy does with some
     * refused conditional writes) is given up after seconds, not after the socket timeout of an archive transfer.
     */
    private static final AwsRequestOverrideConfiguration LEASE_CALL = AwsRequestOverrideConfiguration.builder()
            .apiCallAttemptTimeout(Duration.ofSeconds(5))
            .apiCallTimeout(Duration.ofSeconds(15))
            .build();

    private final S3Bucket bucket;
    private final String prefix;

    public S3LeaseObjects(S3Bucket bucket) {
        this.bucket = bucket;
        this.prefix = bucket.settings().prefix();
    }

    @Override
    public Optional<String> createIfAbsent(String name, byte[] content) throws StoreUnavailableException {
        String object = prefix + name;
        return conditional(
                "put_lease",
                object,
                () -> bucket.client()
                        .putObject(
                                b -> b.bucket(bucket.name())
                                        .key(object)
                                        .ifNoneMatch("*")
                                        .overrideConfiguration(LEASE_CALL),
                                RequestBody.fromBytes(content))
                        .eTag());
    }

    @Override
    public Optional<Versioned> read(String name) throws StoreUnavailableException {
        String object = prefix + name;
        return bucket.callIfPresent("get_lease", object, () -> {
            ResponseBytes<GetObjectResponse> bytes = bucket.client()
                    .getObjectAsBytes(b -> b.bucket(bucket.name()).key(object).overrideConfiguration(LEASE_CALL));
            return new Versioned(bytes.asByteArray(), bytes.response().eTag());
        });
    }

    @Override
    public Optional<String> replaceIfMatch(String name, byte[] content, String etag) throws StoreUnavailableException {
        String object = prefix + name;
        return conditional(
                "put_lease",
                object,
                () -> bucket.client()
                        .putObject(
                                b -> b.bucket(bucket.name())
                                        .key(object)
                                        .ifMatch(etag)
                                        .overrideConfiguration(LEASE_CALL),
                                RequestBody.fromBytes(content))
                        .eTag());
    }

    @Override
    public void delete(String name) throws StoreUnavailableException {
        String object = prefix + name;
        bucket.call(
                "delete_lease",
                object,
                () -> bucket.client()
                        .deleteObject(b -> b.bucket(bucket.name()).key(object).overrideConfiguration(LEASE_CALL)));
    }

    /** Sends a conditional write; empty when its condition was refused. */
    private Optional<String> conditional(String operation, String object, S3Bucket.Request<String> request)
            throws StoreUnavailableException {
        long start = System.nanoTime();
        try {
            String etag = request.send();
            bucket.listener().request(operation, "ok", Duration.ofNanos(System.nanoTime() - start));
            return Optional.of(etag);
        } catch (S3Exception e) {
            if (e.statusCode() == 412 || e.statusCode() == 409 || e.statusCode() == 404) {
                bucket.listener().request(operation, "refused", Duration.ofNanos(System.nanoTime() - start));
                return Optional.empty();
            }
            bucket.listener().request(operation, "error", Duration.ofNanos(System.nanoTime() - start));
            throw bucket.failure(operation, object, e);
        } catch (SdkException e) {
            // Some servers answer a refused condition before reading the body and close the connection, which
            // the client sees as a failure to send: the caller reads the lease back to learn what happened.
            bucket.listener().request(operation, "error", Duration.ofNanos(System.nanoTime() - start));
            return Optional.empty();
        }
    }
}
