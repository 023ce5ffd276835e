package io.providermirror.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.FileBlobStore;
import io.providermirror.testkit.SettableClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * {@code --verify-cache} on the bucket (S3Proxy on loopback): every archive object is read and checked against the
 * size and sha256 its commit recorded, whether it was altered on the server's disk or overwritten through the S3
 * API with its old metadata; what does not match is removed and reported, the rest stays.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class BucketVerificationTest {

    private static final CacheKey GOOD = CacheKey.of("example.test", "acme", "fake", "1.0.0", "good.zip");
    private static final CacheKey ON_DISK = CacheKey.of("example.test", "acme", "fake", "1.0.0", "disk.zip");
    private static final CacheKey OVERWRITTEN = CacheKey.of("example.test", "acme", "fake", "1.0.0", "api.zip");
    private static final CacheKey SHORTENED = CacheKey.of("example.test", "acme", "fake", "1.0.0", "short.zip");
    private static final CacheKey LARGE = CacheKey.of("example.test", "acme", "fake", "1.0.0", "large.zip");

    private final S3Fixture fixture = new S3Fixture();
    private final SettableClock clock = new SettableClock(Instant.parse("2026-01-02T03:04:05Z"));

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
    }

    private S3BlobStore store() throws IOException {
        return new S3BlobStore(
                fixture.bucket(),
                new FileBlobStore(fixture.newTier(), clock),
                Long.MAX_VALUE,
                S3Fixture.PART_BYTES,
                clock);
    }

    private static byte[] commit(S3BlobStore store, CacheKey key, int length) throws IOException {
        byte[] bytes = new byte[length];
        new Random(key.hashCode()).nextBytes(bytes);
        try (BlobWrite write = store.create(key)) {
            write.write(ByteBuffer.wrap(bytes));
            write.commit(StoreContractTest.sha256(bytes));
        }
        return bytes;
    }

    /** Puts {@code content} as the object of {@code key} with the metadata the object has now. */
    private void overwriteKeepingMetadata(CacheKey key, byte[] content) {
        String object = fixture.bucket().blobObject(key);
        Map<String, String> metadata = fixture.bucket()
                .client()
                .headObject(b -> b.bucket(S3Fixture.BUCKET).key(object))
                .metadata();
        fixture.bucket()
                .client()
                .putObject(
                        b -> b.bucket(S3Fixture.BUCKET).key(object).metadata(metadata), RequestBody.fromBytes(content));
    }

    @Test
    void everyObjectIsCheckedAndThoseThatNoLongerMatchAreRemovedAndReported() throws IOException {
        S3BlobStore store = store();
        byte[] good = commit(store, GOOD, 10_000);
        byte[] onDisk = commit(store, ON_DISK, 10_000);
        byte[] overwritten = commit(store, OVERWRITTEN, 10_000);
        commit(store, SHORTENED, 10_000);
        byte[] large = commit(store, LARGE, 2 * S3Fixture.PART_BYTES + 17);

        // the same length, one bit changed, on the backend's disk: its metadata stays as the commit wrote it
        onDisk[5000] ^= 0x01;
        Files.write(
                fixture.objectFile(fixture.bucket().blobObject(ON_DISK)),
                onDisk,
                StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        overwritten[0] ^= 0x01;
        overwriteKeepingMetadata(OVERWRITTEN, overwritten);
        overwriteKeepingMetadata(SHORTENED, new byte[100]);

        FileBlobStore.VerificationReport report = store().verifyAll();

        assertThat(report.checked()).isEqualTo(5);
        assertThat(report.removed()).containsExactlyInAnyOrder(ON_DISK, OVERWRITTEN, SHORTENED);
        S3BlobStore reopened = store();
        assertThat(reopened.find(ON_DISK)).isEmpty();
        assertThat(reopened.find(OVERWRITTEN)).isEmpty();
        assertThat(reopened.find(SHORTENED)).isEmpty();
        try (var blob = reopened.open(GOOD).orElseThrow()) {
            assertThat(blob.inputStream().readAllBytes()).isEqualTo(good);
        }
        try (var blob = reopened.open(LARGE).orElseThrow()) {
            assertThat(blob.inputStream().readAllBytes()).isEqualTo(large);
        }
        assertThat(fixture.objects(fixture.bucket().blobPrefix())).hasSize(2);
    }

    @Test
    void anArchiveRemovedByVerificationLeavesTheLocalTierToo() throws IOException {
        S3BlobStore store = store();
        byte[] bytes = commit(store, GOOD, 1000);
        bytes[0] ^= 0x01;
        overwriteKeepingMetadata(GOOD, bytes);

        FileBlobStore.VerificationReport report = store.verifyAll();

        assertThat(report.removed()).containsExactly(GOOD);
        assertThat(store.find(GOOD))
                .as("not even in the local tier of the instance that wrote it")
                .isEmpty();
    }
}
