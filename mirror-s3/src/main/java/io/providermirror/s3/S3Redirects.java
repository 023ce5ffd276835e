package io.providermirror.s3;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * Presigned GET URLs of archives' objects, for a mirror that answers archive requests with a redirect to the
 * bucket ({@code cache.s3.redirectArchives}) so the bytes go from the store to the client without passing through
 * it. Signing is local (no request to the bucket); a URL is valid for {@code lifetime} and only for a GET of that
 * one object. It is signed for {@code endpoint}, the address clients reach the store at, which may differ from the
 * one the mirror uses (a signature covers the host).
 */
public final class S3Redirects implements AutoCloseable {

    private final S3Presigner presigner;
    private final String bucket;
    private final Duration lifetime;

    private S3Redirects(S3Presigner presigner, String bucket, Duration lifetime) {
        this.presigner = presigner;
        this.bucket = bucket;
        this.lifetime = lifetime;
    }

    /**
     * Signs for the bucket of {@code settings} with {@code credentials}, as seen at {@code endpoint} (absent: the
     * settings' endpoint, or AWS's).
     */
    public static S3Redirects create(
            S3Settings settings, Optional<URI> endpoint, AwsCredentialsProvider credentials, Duration lifetime) {
        if (lifetime.isNegative() || lifetime.isZero() || lifetime.compareTo(Duration.ofDays(7)) > 0) {
            throw new IllegalArgumentException("lifetime: " + lifetime + " (expected: above 0 and at most 7 days)");
        }
        S3Presigner.Builder builder = S3Presigner.builder()
                .credentialsProvider(credentials)
                .region(Region.of(settings.region()))
                .serviceConfiguration(S3Configuration.builder()
                        .pathStyleAccessEnabled(settings.pathStyleAccess())
                        .build());
        endpoint.or(settings::endpoint).ifPresent(builder::endpointOverride);
        return new S3Redirects(builder.build(), settings.bucket(), lifetime);
    }

    /** How long a URL stays valid. */
    public Duration lifetime() {
        return lifetime;
    }

    /** A URL that lets its holder GET {@code object} for {@link #lifetime()}. */
    URI presign(String object) {
        try {
            return presigner
                    .presignGetObject(request -> request.signatureDuration(lifetime)
                            .getObjectRequest(get -> get.bucket(bucket).key(object)))
                    .url()
                    .toURI();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("the presigned URL of " + object + " is not a URI", e);
        }
    }

    @Override
    public void close() {
        presigner.close();
    }
}
