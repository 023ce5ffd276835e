package io.providermirror.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobSummary;
import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.OpenBlob;
import io.providermirror.cache.StoredBlob;
import io.providermirror.cache.StoredDocument;
import io.providermirror.testkit.SettableClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What every {@link BlobStore} and {@link DocumentStore} promises, run against the disk stores and the S3 stores
 * alike: nothing is visible before its commit, an aborted write leaves nothing (no temporary object either),
 * content altered behind the store's back is refused and removed, the size bound evicts the least recently used,
 * the listing holds what was committed, committed blobs survive a reopen, documents are replaced whole.
 */
abstract class StoreContractTest {

    static final CacheKey KEY = CacheKey.of("example.test", "acme", "fake", "1.0.0", "a.zip");
    static final CacheKey OTHER = CacheKey.of("example.test", "acme", "fake", "1.0.0", "b.zip");

    final SettableClock clock = new SettableClock(Instant.parse("2026-01-02T03:04:05Z"));

    /** A store over the backing storage of this test, bounded by {@code maxBytes}; a second call is a reopen. */
    abstract BlobStore blobStore(long maxBytes) throws IOException;

    /** A document store over the backing storage of this test. */
    abstract DocumentStore documentStore() throws IOException;

    /** Replaces the committed content of {@code key} behind the store's back, keeping what the store recorded. */
    abstract void alter(CacheKey key, byte[] content) throws IOException;

    /** Temporary files or objects the stores left behind. */
    abstract long temporaryObjects() throws IOException;

    static StoredBlob commit(BlobStore store, CacheKey key, String content) throws IOException {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        try (BlobWrite write = store.create(key)) {
            write.write(ByteBuffer.wrap(bytes));
            return write.commit(sha256(bytes));
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static Optional<String> read(BlobStore store, CacheKey key) throws IOException {
        Optional<OpenBlob> opened = store.open(key);
        if (opened.isEmpty()) {
            return Optional.empty();
        }
        try (OpenBlob blob = opened.get()) {
            return Optional.of(new String(blob.inputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void nothingIsVisibleUntilCommit() throws IOException {
        BlobStore store = blobStore(Long.MAX_VALUE);
        BlobWrite write = store.create(KEY);
        write.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)));
        assertThat(store.find(KEY)).isEmpty();
        assertThat(store.open(KEY)).isEmpty();
        try (var reader = write.openReader()) {
            assertThat(reader.size()).as("a reader follows the write").isEqualTo(5);
        }

        StoredBlob blob = write.commit(sha256("hello".getBytes(StandardCharsets.UTF_8)));

        assertThat(blob.size()).isEqualTo(5);
        assertThat(store.find(KEY)).map(StoredBlob::sha256).contains(blob.sha256());
        assertThat(read(store, KEY)).contains("hello");
        assertThat(temporaryObjects()).isZero();
    }

    @Test
    void anAbortedWriteLeavesNothingBehind() throws IOException {
        BlobStore store = blobStore(Long.MAX_VALUE);
        try (BlobWrite write = store.create(KEY)) {
            write.write(ByteBuffer.wrap(new byte[1000]));
        }
        assertThat(store.find(KEY)).isEmpty();
        assertThat(blobStore(Long.MAX_VALUE).find(KEY)).as("after a reopen").isEmpty();
        assertThat(temporaryObjects()).isZero();
    }

    @Test
    void committedBlobsSurviveAReopen() throws IOException {
        commit(blobStore(Long.MAX_VALUE), KEY, "kept");
        BlobStore reopened = blobStore(Long.MAX_VALUE);
        assertThat(read(reopened, KEY)).contains("kept");
        assertThat(reopened.count()).isEqualTo(1);
        assertThat(reopened.totalBytes()).isEqualTo(4);
    }

    @Test
    void alteredContentIsRefusedAndRemoved() throws IOException {
        commit(blobStore(Long.MAX_VALUE), KEY, "hello world");
        alter(KEY, "hellO world".getBytes(StandardCharsets.UTF_8));

        BlobStore reopened = blobStore(Long.MAX_VALUE);
        assertThat(read(reopened, KEY)).isEmpty();
        assertThat(reopened.find(KEY)).as("removed").isEmpty();
        assertThat(blobStore(Long.MAX_VALUE).find(KEY)).as("removed for good").isEmpty();
    }

    @Test
    void contentOfAnotherSizeIsRefused() throws IOException {
        commit(blobStore(Long.MAX_VALUE), KEY, "hello world");
        alter(KEY, "hello".getBytes(StandardCharsets.UTF_8));

        BlobStore reopened = blobStore(Long.MAX_VALUE);
        assertThat(read(reopened, KEY)).isEmpty();
        assertThat(blobStore(Long.MAX_VALUE).find(KEY)).isEmpty();
    }

    @Test
    void theSizeBoundEvictsTheLeastRecentlyUsed() throws IOException {
        BlobStore store = blobStore(10);
        commit(store, KEY, "123456");
        clock.advance(Duration.ofSeconds(1));
        commit(store, OTHER, "abcdef");

        assertThat(store.find(KEY)).isEmpty();
        assertThat(read(store, OTHER)).contains("abcdef");
        assertThat(store.count()).isEqualTo(1);
        assertThat(store.totalBytes()).isEqualTo(6);
        assertThat(store.evictions()).isEqualTo(1);
        assertThat(blobStore(10).find(KEY)).as("gone from the backing storage").isEmpty();
    }

    @Test
    void theListingHoldsEveryCommittedBlob() throws IOException {
        BlobStore store = blobStore(Long.MAX_VALUE);
        commit(store, KEY, "one");
        commit(store, OTHER, "three");

        assertThat(store.list())
                .extracting(BlobSummary::key, BlobSummary::size)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(KEY, 3L), org.assertj.core.groups.Tuple.tuple(OTHER, 5L));
        assertThat(blobStore(Long.MAX_VALUE).list())
                .extracting(BlobSummary::key)
                .containsExactlyInAnyOrder(KEY, OTHER);
    }

    @Test
    void removeRemoves() throws IOException {
        BlobStore store = blobStore(Long.MAX_VALUE);
        commit(store, KEY, "one");
        store.remove(KEY);
        assertThat(store.find(KEY)).isEmpty();
        assertThat(blobStore(Long.MAX_VALUE).find(KEY)).isEmpty();
    }

    @Test
    void documentsAreStoredAndReplacedWhole() throws IOException {
        DocumentStore documents = documentStore();
        CacheKey key = CacheKey.of("example.test", "acme", "fake", "versions.json");
        assertThat(documents.read(key)).isEmpty();

        documents.write(key, "{\"v\":1}".getBytes(StandardCharsets.UTF_8));
        clock.advance(Duration.ofMinutes(5));
        StoredDocument written = documents.write(key, "{\"v\":2}".getBytes(StandardCharsets.UTF_8));

        StoredDocument read = documentStore().read(key).orElseThrow();
        assertThat(new String(read.content(), StandardCharsets.UTF_8)).isEqualTo("{\"v\":2}");
        assertThat(read.storedAt()).isEqualTo(clock.instant()).isEqualTo(written.storedAt());
        assertThat(temporaryObjects()).isZero();
    }

    @Test
    void aFolderListsTheDocumentsDirectlyBeneathItAndDeleteRemovesOneOrNothing() throws IOException {
        DocumentStore documents = documentStore();
        CacheKey folder = CacheKey.of("_inventory");
        assertThat(documents.list(folder)).as("a folder that holds nothing").isEmpty();
        CacheKey a = CacheKey.of("_inventory", "a.json");
        CacheKey b = CacheKey.of("_inventory", "b.json");
        documents.write(a, "{}".getBytes(StandardCharsets.UTF_8));
        documents.write(b, "{}".getBytes(StandardCharsets.UTF_8));
        documents.write(CacheKey.of("_inventory", "deeper", "c.json"), "{}".getBytes(StandardCharsets.UTF_8));
        assertThat(documents.list(folder)).containsExactlyInAnyOrder(a, b);

        documents.delete(a);
        documents.delete(a); // absent: nothing to do, no failure
        assertThat(documents.read(a)).isEmpty();
        assertThat(documentStore().list(folder)).containsExactly(b);
    }

    @Test
    void aStoreThatCannotListOrDeleteSaysSoWithAnIOException() {
        DocumentStore readOnly = new DocumentStore() {
            @Override
            public Optional<StoredDocument> read(CacheKey key) {
                return Optional.empty();
            }

            @Override
            public StoredDocument write(CacheKey key, byte[] content) throws IOException {
                throw new IOException("read only");
            }
        };
        assertThatThrownBy(() -> readOnly.list(CacheKey.of("_inventory")))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("cannot list");
        assertThatThrownBy(() -> readOnly.delete(CacheKey.of("_inventory", "a.json")))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("does not remove");
    }
}
