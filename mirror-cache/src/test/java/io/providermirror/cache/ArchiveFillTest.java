package io.providermirror.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class ArchiveFillTest {

    private static final CacheKey KEY = CacheKey.of("h", "n", "t", "1.0.0", "x.zip");

    @TempDir
    Path root;

    @Test
    void readersNeverSeeTheLastByteBeforeCommit() throws IOException {
        FillRegistry fills = new FillRegistry(new FileBlobStore(root, Clock.systemUTC()));
        ArchiveFill fill = fills.joinOrStart(KEY, f -> {}).orElseThrow().fill();
        fill.begin(OptionalLong.of(4));
        fill.append(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}));
        assertThat(fill.writtenBytes()).isEqualTo(4);
        assertThat(fill.readableBytes()).isEqualTo(3);
        fill.commit("0".repeat(64));
        assertThat(fill.readableBytes()).isEqualTo(4);
    }

    /** What fails after the commit (recording the archive's hashes, say) leaves the committed archive served. */
    @Test
    void aCommittedFillStaysCommittedWhateverFailsAfterIt() throws IOException {
        FileBlobStore store = new FileBlobStore(root, Clock.systemUTC());
        ArchiveFill fill =
                new FillRegistry(store).joinOrStart(KEY, f -> {}).orElseThrow().fill();
        fill.begin(OptionalLong.of(4));
        fill.append(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}));
        StoredBlob blob = fill.commit("0".repeat(64));

        fill.fail(new IllegalStateException("the transparency log is closed"));

        assertThat(fill.failure()).isEmpty();
        assertThat(fill.completion()).isCompletedWithValue(blob);
        assertThat(fill.readableBytes()).isEqualTo(4);
        try (OpenBlob stored = store.open(KEY).orElseThrow()) {
            assertThat(stored.blob().size()).isEqualTo(4);
        }
    }

    /**
     * A reader's listener that throws (its event loop shut down) is dropped: the fill goes on, its commit returns to
     * the writer (who then records the archive's hashes and log entry), and the other readers are still told.
     */
    @Test
    void aListenerThatThrowsNeitherFailsTheFillNorItsCommitAndIsDropped() throws IOException {
        ArchiveFill fill = new FillRegistry(new FileBlobStore(root, Clock.systemUTC()))
                .joinOrStart(KEY, f -> {})
                .orElseThrow()
                .fill();
        AtomicInteger thrown = new AtomicInteger();
        AtomicInteger told = new AtomicInteger();
        fill.onProgress(() -> {
            thrown.incrementAndGet();
            throw new java.util.concurrent.RejectedExecutionException("event executor terminated");
        });
        fill.onProgress(told::incrementAndGet);
        fill.begin(OptionalLong.of(4));

        fill.append(ByteBuffer.wrap(new byte[] {1, 2}));
        fill.append(ByteBuffer.wrap(new byte[] {3, 4}));
        StoredBlob blob = fill.commit("0".repeat(64));

        assertThat(fill.completion()).isCompletedWithValue(blob);
        assertThat(fill.failure()).isEmpty();
        assertThat(told).hasValue(3);
        assertThat(thrown).as("told once, then dropped").hasValue(1);
    }

    @Test
    void aRequestArrivingAsAFailedFillEndsStartsAFreshFillInsteadOfJoiningTheFailure() throws IOException {
        FileBlobStore store = new FileBlobStore(root, Clock.systemUTC());
        FillRegistry fills = new FillRegistry(store);
        CacheKey key = CacheKey.of("example.test", "acme", "raced", "1.0.0", "a.zip");
        ArchiveFill failing = fills.joinOrStart(key, fill -> {}).orElseThrow().fill();
        // A caller that saw the failure asks again from within the completion's callbacks: those registered after
        // the registry's own removal run before it, so the failed fill is still registered at that moment.
        FillRegistry.Joined[] again = new FillRegistry.Joined[1];
        boolean[] stillRegistered = new boolean[1];
        failing.completion().whenComplete((blob, failure) -> {
            stillRegistered[0] = fills.inProgress(key);
            try {
                again[0] = fills.joinOrStart(key, fill -> {}).orElseThrow();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });

        failing.fail(new IOException("the origin's archive did not match its checksum"));

        assertThat(stillRegistered[0]).as("the race this is about happened").isTrue();
        assertThat(again[0].started()).as("a fresh fill, not the failed one").isTrue();
        assertThat(again[0].fill()).isNotSameAs(failing);
        assertThat(again[0].fill().completion()).isNotDone();
    }

    @Test
    void aFailedFillCachesNothingAndTellsItsReaders() throws IOException {
        FileBlobStore store = new FileBlobStore(root, Clock.systemUTC());
        FillRegistry fills = new FillRegistry(store);
        ArchiveFill fill = fills.joinOrStart(KEY, f -> {}).orElseThrow().fill();
        AtomicInteger signals = new AtomicInteger();
        fill.onProgress(signals::incrementAndGet);
        fill.append(ByteBuffer.wrap(new byte[] {1, 2}));
        fill.fail(new IOException("hash mismatch"));
        assertThat(fill.completion()).isCompletedExceptionally();
        assertThat(signals.get()).isEqualTo(2);
        assertThat(store.find(KEY)).isEmpty();
        assertThat(fills.size()).isZero();
    }

    @Test
    void concurrentRequestsJoinOneFill() throws Exception {
        FillRegistry fills = new FillRegistry(new FileBlobStore(root, Clock.systemUTC()));
        AtomicInteger starts = new AtomicInteger();
        CountDownLatch ready = new CountDownLatch(1);
        int clients = 16;
        Thread[] threads = new Thread[clients];
        ArchiveFill[] seen = new ArchiveFill[clients];
        for (int i = 0; i < clients; i++) {
            int index = i;
            threads[i] = new Thread(() -> {
                try {
                    ready.await();
                    seen[index] = fills.joinOrStart(KEY, f -> starts.incrementAndGet())
                            .orElseThrow()
                            .fill();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            threads[i].start();
        }
        ready.countDown();
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }
        assertThat(starts.get()).isEqualTo(1);
        assertThat(seen).allMatch(f -> f == seen[0]);
        seen[0].commit("0".repeat(64));
        await().atMost(30, TimeUnit.SECONDS).until(() -> fills.size() == 0);
        assertThat(fills.joinOrStart(KEY, f -> starts.incrementAndGet()))
                .as("committed: nothing to fetch")
                .isEmpty();
        assertThat(starts.get()).isEqualTo(1);
    }

    @Test
    void aRequestArrivingAfterAFillEndedNeverStartsASecondDownload() throws Exception {
        FileBlobStore store = new FileBlobStore(root, Clock.systemUTC());
        FillRegistry fills = new FillRegistry(store);
        ArchiveFill first = fills.joinOrStart(KEY, f -> {}).orElseThrow().fill();
        // A request looked in the store before the commit and asks the registry after the fill left it.
        assertThat(store.find(KEY)).isEmpty();
        first.append(java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3}));
        first.commit("0".repeat(64));
        await().atMost(30, TimeUnit.SECONDS).until(() -> fills.size() == 0);

        assertThat(fills.joinOrStart(KEY, f -> {
                    throw new AssertionError("a second download started");
                }))
                .isEmpty();
    }

    @Test
    void aFailedFillLeavesRoomForANewOne() throws Exception {
        FillRegistry fills = new FillRegistry(new FileBlobStore(root, Clock.systemUTC()));
        fills.joinOrStart(KEY, f -> {}).orElseThrow().fill().fail(new java.io.IOException("origin went away"));
        await().atMost(30, TimeUnit.SECONDS).until(() -> fills.size() == 0);

        assertThat(fills.joinOrStart(KEY, f -> {}).orElseThrow().started()).isTrue();
    }
}
