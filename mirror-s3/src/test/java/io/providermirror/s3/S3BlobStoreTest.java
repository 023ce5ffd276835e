package io.providermirror.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.FileBlobStore;
import io.providermirror.cache.OpenBlob;
import io.providermirror.cache.StoreUnavailableException;
import io.providermirror.testkit.SettableClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.core.sync.RequestBody;

/** What the S3 blob store does beyond the contract: the local tier, multipart uploads, an unreachable bucket. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class S3BlobStoreTest {

    private static final CacheKey KEY = StoreContractTest.KEY;

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
        fixture.listener().clear();
    }

    private S3BlobStore store() throws IOException {
        return store(clock);
    }

    private S3BlobStore store(java.time.Clock clock) throws IOException {
        return new S3BlobStore(
                fixture.bucket(),
                new FileBlobStore(fixture.newTier(), clock),
                Long.MAX_VALUE,
                S3Fixture.PART_BYTES,
                clock);
    }

    private static byte[] randomBytes(int length) {
        byte[] bytes = new byte[length];
        new Random(length).nextBytes(bytes);
        return bytes;
    }

    private static void commit(S3BlobStore store, CacheKey key, byte[] bytes) throws IOException {
        try (BlobWrite write = store.create(key)) {
            write.write(ByteBuffer.wrap(bytes));
            write.commit(StoreContractTest.sha256(bytes));
        }
    }

    private static byte[] read(OpenBlob blob) throws IOException {
        try (blob) {
            return blob.inputStream().readAllBytes();
        }
    }

    @Test
    void aWarmArchiveIsServedFromTheLocalTierItsFileOrHeldInMemory() throws IOException {
        S3BlobStore store = store();
        commit(store, KEY, "warm".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        try (OpenBlob first = store.open(KEY).orElseThrow()) {
            assertThat(first.channel()).isInstanceOf(FileChannel.class);
        }
        fixture.listener().clear();

        try (OpenBlob warm = store.openVerified(KEY).orElseThrow()) {
            assertThat(warm.held())
                    .as("4 bytes: held by the local tier once its hot path read them")
                    .isPresent();
            assertThat(warm.blob().size()).isEqualTo(4);
        }
        assertThat(store.heldBytes())
                .as("what the local tier holds is the store's")
                .isEqualTo(4);

        assertThat(fixture.listener().localTierHits()).isEqualTo(1);
        assertThat(fixture.listener().requests()).as("no request to the bucket").isEmpty();
    }

    @Test
    void aColdArchiveComesFromTheBucketIntoTheLocalTier() throws IOException {
        byte[] bytes = randomBytes(100_000);
        commit(store(), KEY, bytes);
        S3BlobStore other = store();
        fixture.listener().clear();

        assertThat(read(other.open(KEY).orElseThrow())).isEqualTo(bytes);
        assertThat(fixture.listener().requests()).containsExactly("get:ok");

        assertThat(read(other.open(KEY).orElseThrow())).isEqualTo(bytes);
        assertThat(fixture.listener().requests()).as("the second read is local").containsExactly("get:ok");
        assertThat(fixture.listener().localTierHits()).isEqualTo(1);
    }

    @Test
    void concurrentReadersOfAColdArchiveShareOneRequestToTheBucket() throws Exception {
        byte[] bytes = randomBytes(3 * 1024 * 1024);
        commit(store(), KEY, bytes);
        S3BlobStore other = store();
        fixture.listener().clear();
        int readers = 8;
        java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(readers);
        try {
            List<java.util.concurrent.Future<byte[]>> reads = new java.util.ArrayList<>();
            for (int i = 0; i < readers; i++) {
                reads.add(pool.submit(() -> {
                    start.await();
                    return read(other.open(KEY).orElseThrow());
                }));
            }
            start.countDown();
            for (java.util.concurrent.Future<byte[]> read : reads) {
                assertThat(read.get(30, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(bytes);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(fixture.listener().requests()).containsExactly("get:ok");
        assertThat(fixture.listener().localTierHits()).isEqualTo(readers - 1);
    }

    @Test
    void aLargeArchiveIsAMultipartUploadCompletedAfterItsPartsWereChecked() throws IOException {
        byte[] bytes = randomBytes(2 * S3Fixture.PART_BYTES + 12345);
        S3BlobStore store = store();
        fixture.listener().clear();
        commit(store, KEY, bytes);

        // create, three parts, the parts held checked, complete
        assertThat(fixture.listener().requests())
                .filteredOn(r -> r.startsWith("multipart"))
                .hasSize(6);
        assertThat(fixture.listener().requests()).doesNotContain("put:ok");
        S3BlobStore other = store();
        assertThat(other.find(KEY).orElseThrow().size()).isEqualTo(bytes.length);
        assertThat(read(other.open(KEY).orElseThrow())).isEqualTo(bytes);
        assertThat(fixture.objects(fixture.bucket().temporaryPrefix())).isEmpty();
    }

    @Test
    void aSmallArchiveGoesThroughATemporaryObjectThatIsRemoved() throws IOException {
        S3BlobStore store = store();
        fixture.listener().clear();
        commit(store, KEY, randomBytes(1000));

        assertThat(fixture.listener().requests())
                .containsExactly("put:ok", "head:ok", "copy:ok", "delete:ok", "head:ok");
        assertThat(fixture.objects(fixture.bucket().temporaryPrefix())).isEmpty();
        assertThat(fixture.objects(fixture.bucket().blobPrefix())).hasSize(1);
    }

    @Test
    void leftoverTemporaryObjectsAreRemovedAtStartUp() throws IOException {
        String leftover = fixture.bucket().newTemporaryObject();
        fixture.bucket()
                .client()
                .putObject(b -> b.bucket(S3Fixture.BUCKET).key(leftover), RequestBody.fromString("half"));
        String recent = fixture.bucket().newTemporaryObject();
        fixture.bucket()
                .client()
                .putObject(b -> b.bucket(S3Fixture.BUCKET).key(recent), RequestBody.fromString("half"));
        // the bucket's clock is the real one
        SettableClock now = new SettableClock(Instant.now());

        store(now);
        assertThat(fixture.objects(fixture.bucket().temporaryPrefix()))
                .as("younger than an hour: perhaps another instance's upload")
                .hasSize(2);

        now.advance(S3BlobStore.TEMPORARY_OBJECT_AGE.plus(Duration.ofMinutes(1)));
        store(now);
        assertThat(fixture.objects(fixture.bucket().temporaryPrefix()))
                .extracting(o -> o.key())
                .doesNotContain(leftover, recent)
                .isEmpty();
    }

    @Test
    void withTheBucketStoppedWarmArchivesAreServedAndColdOnesFailNamingTheBucket() throws IOException {
        S3BlobStore store = store();
        byte[] warm = randomBytes(1000);
        commit(store, KEY, warm);
        CacheKey cold = StoreContractTest.OTHER;
        commit(store(), cold, randomBytes(2000));

        fixture.server().stop();
        try {
            assertThat(read(store.open(KEY).orElseThrow())).isEqualTo(warm);
            assertThatThrownBy(() -> store.open(cold))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("S3 bucket 'mirror'")
                    .hasMessageContaining("get ");
            assertThatThrownBy(() -> commit(store, CacheKey.of("x", "new.zip"), randomBytes(10)))
                    .isInstanceOf(StoreUnavailableException.class);
        } finally {
            fixture.server().start();
        }
        assertThat(store.find(CacheKey.of("x", "new.zip")))
                .as("nothing half-committed")
                .isEmpty();

        assertThat(read(store.open(cold).orElseThrow())).hasSize(2000);
        assertThat(fixture.listener().requests()).contains("get:error");
    }
}
