package io.providermirror.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.providermirror.cache.BlobRedirect;
import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.FileBlobStore;
import io.providermirror.cache.StoreUnavailableException;
import io.providermirror.testkit.S3ProxyServer;
import io.providermirror.testkit.SettableClock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * Presigned archive URLs ({@code cache.s3.redirectArchives}) against a real S3 API (S3Proxy on loopback): a URL
 * only for an archive committed in the bucket, which a plain HTTP client reads whole or in ranges, and which opens
 * that one object for a GET and nothing else.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class S3BlobRedirectTest {

    private static final CacheKey KEY = StoreContractTest.KEY;
    private static final StaticCredentialsProvider CREDENTIALS = StaticCredentialsProvider.create(
            AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY));

    private final S3Fixture fixture = new S3Fixture();
    private final SettableClock clock = new SettableClock(Instant.parse("2026-01-02T03:04:05Z"));
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    void startS3() throws IOException {
        fixture.start();
    }

    @AfterAll
    void stopS3() throws IOException {
        fixture.close();
    }

    @BeforeEach
    void freshPrefix() {
        fixture.newPrefix();
        fixture.listener().clear();
    }

    private S3BlobStore store(Optional<URI> endpoint) throws IOException {
        return store(endpoint, Duration.ofMinutes(5));
    }

    private S3BlobStore store(Optional<URI> endpoint, Duration lifetime) throws IOException {
        return new S3BlobStore(
                fixture.bucket(),
                new FileBlobStore(fixture.newTier(), clock),
                Long.MAX_VALUE,
                S3Fixture.PART_BYTES,
                clock,
                Optional.of(S3Redirects.create(fixture.settings(), endpoint, CREDENTIALS, lifetime)));
    }

    private static byte[] commit(S3BlobStore store, CacheKey key, int length) throws IOException {
        byte[] bytes = new byte[length];
        new Random(length).nextBytes(bytes);
        try (BlobWrite write = store.create(key)) {
            write.write(ByteBuffer.wrap(bytes));
            write.commit(StoreContractTest.sha256(bytes));
        }
        return bytes;
    }

    private HttpResponse<byte[]> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void aCommittedArchiveGetsAPresignedUrlThatAPlainClientReadsWholeAndInRanges() throws Exception {
        S3BlobStore store = store(Optional.empty());
        byte[] bytes = commit(store, KEY, 200_000);
        fixture.listener().clear();

        BlobRedirect redirect = store.redirect(KEY).orElseThrow();

        assertThat(store.redirects()).isTrue();
        assertThat(fixture.listener().requests())
                .as("one HEAD, signing is local")
                .containsExactly("head:ok");
        assertThat(redirect.blob().size()).isEqualTo(bytes.length);
        assertThat(redirect.blob().sha256()).isEqualTo(StoreContractTest.sha256(bytes));
        assertThat(redirect.location().getRawQuery()).contains("X-Amz-Signature=", "X-Amz-Expires=300");
        HttpResponse<byte[]> whole = send(HttpRequest.newBuilder(redirect.location()));
        assertThat(whole.statusCode()).isEqualTo(200);
        assertThat(whole.body()).isEqualTo(bytes);
        HttpResponse<byte[]> range =
                send(HttpRequest.newBuilder(redirect.location()).header("Range", "bytes=1000-1999"));
        assertThat(range.statusCode()).isEqualTo(206);
        assertThat(range.body()).isEqualTo(Arrays.copyOfRange(bytes, 1000, 2000));
    }

    @Test
    void aPresignedUrlOpensThatObjectForAGetAndNothingElse() throws Exception {
        S3BlobStore store = store(Optional.empty());
        commit(store, KEY, 1000);
        commit(store, StoreContractTest.OTHER, 2000);
        URI location = store.redirect(KEY).orElseThrow().location();

        HttpResponse<byte[]> head =
                send(HttpRequest.newBuilder(location).method("HEAD", HttpRequest.BodyPublishers.noBody()));
        assertThat(head.statusCode())
                .as("signed for GET: which is why the mirror answers a HEAD itself")
                .isEqualTo(403);
        URI other = URI.create(location.toString().replace("/a.zip?", "/b.zip?"));
        assertThat(send(HttpRequest.newBuilder(other)).statusCode()).isEqualTo(403);
        URI unsigned =
                URI.create(location.toString().substring(0, location.toString().indexOf('?')));
        assertThat(send(HttpRequest.newBuilder(unsigned)).statusCode()).isEqualTo(403);
    }

    @Test
    void theStoreRefusesAUrlOnceItsLifetimeHasPassed() throws Exception {
        // Five seconds here (the configuration's least is 10 s), so the store's own check is seen in a short test.
        S3BlobStore store = store(Optional.empty(), Duration.ofSeconds(5));
        byte[] bytes = commit(store, KEY, 1000);
        URI location = store.redirect(KEY).orElseThrow().location();
        assertThat(location.getRawQuery()).containsPattern("X-Amz-Expires=5(&|$)");
        HttpResponse<byte[]> fresh = send(HttpRequest.newBuilder(location));
        assertThat(fresh.statusCode()).isEqualTo(200);
        assertThat(fresh.body()).isEqualTo(bytes);

        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> send(HttpRequest.newBuilder(location)).statusCode() == 403);
        assertThat(new String(send(HttpRequest.newBuilder(location)).body(), java.nio.charset.StandardCharsets.UTF_8))
                .contains("AccessDenied");
        assertThat(send(HttpRequest.newBuilder(store.redirect(KEY).orElseThrow().location()))
                        .statusCode())
                .as("a new URL for the same object")
                .isEqualTo(200);
    }

    @Test
    void theUrlIsSignedForTheEndpointClientsReach() throws Exception {
        URI clientsReach =
                URI.create("http://localhost:" + fixture.server().endpoint().getPort());
        S3BlobStore store = store(Optional.of(clientsReach));
        byte[] bytes = commit(store, KEY, 5000);

        URI location = store.redirect(KEY).orElseThrow().location();

        assertThat(location.getHost()).isEqualTo("localhost");
        HttpResponse<byte[]> response = send(HttpRequest.newBuilder(location));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo(bytes);
        URI elsewhere = URI.create(location.toString().replaceFirst("//localhost:", "//127.0.0.1:"));
        assertThat(send(HttpRequest.newBuilder(elsewhere)).statusCode())
                .as("the signature covers the host")
                .isEqualTo(403);
    }

    @Test
    void onlyAnArchiveCommittedWithItsRecordedSizeAndHashIsRedirectedTo() throws Exception {
        S3BlobStore store = store(Optional.empty());
        assertThat(store.redirect(KEY)).as("not in the bucket").isEmpty();

        String object = fixture.bucket().blobObject(StoreContractTest.OTHER);
        fixture.bucket()
                .client()
                .putObject(b -> b.bucket(S3Fixture.BUCKET).key(object), RequestBody.fromString("no metadata"));
        assertThat(store.redirect(StoreContractTest.OTHER))
                .as("not as a commit leaves it")
                .isEmpty();
    }

    @Test
    void withoutRedirectsNothingIsPresignedAndABucketThatDoesNotAnswerIsAFailure() throws Exception {
        S3BlobStore plain = new S3BlobStore(
                fixture.bucket(),
                new FileBlobStore(fixture.newTier(), clock),
                Long.MAX_VALUE,
                S3Fixture.PART_BYTES,
                clock);
        commit(plain, KEY, 100);
        assertThat(plain.redirects()).isFalse();
        assertThat(plain.redirect(KEY)).isEmpty();

        S3BlobStore store = store(Optional.empty());
        fixture.server().stop();
        try {
            assertThatThrownBy(() -> store.redirect(KEY))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("S3 bucket 'mirror'");
        } finally {
            fixture.server().start();
        }
    }
}
