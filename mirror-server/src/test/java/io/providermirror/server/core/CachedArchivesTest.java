package io.providermirror.server.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.providermirror.cache.BlobRedirect;
import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.FileBlobStore;
import io.providermirror.cache.OpenBlob;
import io.providermirror.cache.StoredBlob;
import io.providermirror.server.metrics.MeterNames;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.testkit.ForwardingBlobStore;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How an archive request is answered from the cache, whatever the path: hot path, blocking open, redirect, miss. */
final class CachedArchivesTest {

    private static final CacheKey KEY = CacheKey.of("archives", "example.zip");
    private static final byte[] CONTENT = "the archive's bytes".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path tmp;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MirrorMetrics metrics = new MirrorMetrics(registry, Clock.systemUTC());
    /** Runs each task on the caller's thread, counting them: what went through the executor, not the hot path. */
    private final AtomicInteger executed = new AtomicInteger();

    private final Executor executor = task -> {
        executed.incrementAndGet();
        task.run();
    };
    private FileBlobStore disk;

    @BeforeEach
    void openStore() throws IOException {
        disk = new FileBlobStore(tmp.resolve("blobs"), Clock.systemUTC());
    }

    private CachedArchives archives(BlobStore blobs) {
        return new CachedArchives(blobs, executor, metrics, MirrorMetrics.LookupKind.ARCHIVE);
    }

    private StoredBlob commit() throws Exception {
        try (BlobWrite write = disk.create(KEY)) {
            write.write(ByteBuffer.wrap(CONTENT));
            return write.commit(HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(CONTENT)));
        }
    }

    /** The fetch of a lookup that must be answered from the cache: never asked. */
    private static CompletableFuture<ArchiveSource> noFetch() {
        throw new AssertionError("fetched an archive the cache holds");
    }

    private double lookups(String result) {
        return registry.get(MeterNames.CACHE_LOOKUPS)
                .tags(MeterNames.KIND, "archive", MeterNames.RESULT, result)
                .counter()
                .count();
    }

    private static byte[] read(ArchiveSource source) throws IOException {
        assertThat(source).isInstanceOf(ArchiveSource.Cached.class);
        try (source;
                InputStream in = Channels.newInputStream(((ArchiveSource.Cached) source).channel())) {
            return in.readAllBytes();
        }
    }

    @Test
    void anArchiveTheStoreVerifiedBeforeIsOpenedOnTheCallersThreadAndCountedAHit() throws Exception {
        commit();
        disk.open(KEY).orElseThrow().close();

        CompletableFuture<ArchiveSource> answer = archives(disk).get(KEY, CachedArchivesTest::noFetch);

        assertThat(answer).isCompleted();
        assertThat(executed).hasValue(0);
        assertThat(read(answer.join())).isEqualTo(CONTENT);
        assertThat(lookups("hit")).isEqualTo(1.0);
        assertThat(lookups("miss")).isZero();
    }

    @Test
    void anArchiveNotYetOpenedIsOpenedOnTheExecutorAndCountedAHit() throws Exception {
        commit();

        ArchiveSource answer =
                archives(disk).get(KEY, CachedArchivesTest::noFetch).join();

        assertThat(executed).hasValue(1);
        assertThat(read(answer)).isEqualTo(CONTENT);
        assertThat(lookups("hit")).isEqualTo(1.0);
        assertThat(lookups("miss")).isZero();
    }

    @Test
    void anArchiveTheCacheLacksIsCountedAMissAndAnsweredByTheCallersFetch() {
        ArchiveSource fetched = new ArchiveSource.Redirected(null);
        AtomicInteger fetches = new AtomicInteger();

        ArchiveSource answer = archives(disk)
                .get(KEY, () -> {
                    fetches.incrementAndGet();
                    return CompletableFuture.completedFuture(fetched);
                })
                .join();

        assertThat(answer).isSameAs(fetched);
        assertThat(fetches).hasValue(1);
        assertThat(lookups("miss")).isEqualTo(1.0);
        assertThat(lookups("hit")).isZero();
    }

    @Test
    void aStoreThatCannotOpenAnArchiveFailsAsTheMirrorUnavailableNamingItAndFetchesNothing() throws Exception {
        commit();
        disk.open(KEY).orElseThrow().close();
        IOException broken = new IOException("the disk went away");
        BlobStore failing = new ForwardingBlobStore(disk) {
            @Override
            public Optional<OpenBlob> openVerified(CacheKey key) throws IOException {
                throw broken;
            }

            @Override
            public Optional<OpenBlob> open(CacheKey key) throws IOException {
                throw broken;
            }
        };
        CachedArchives archives = archives(failing);

        // The hot path's failure is no answer: the blocking open on the executor says what is wrong.
        assertThatThrownBy(() -> archives.get(KEY, CachedArchivesTest::noFetch).join())
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOf(CacheReadException.class)
                .hasMessageContaining("the mirror cannot read archives/example.zip from its cache (the disk went away)")
                .hasCause(broken);
        assertThat(executed).hasValue(1);
        ch.qos.logback.classic.Logger logger =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(CachedArchives.class);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged =
                new ch.qos.logback.core.read.ListAppender<>();
        logged.start();
        logger.addAppender(logged);
        try {
            assertThatThrownBy(() -> archives.open(KEY)).isInstanceOf(CacheReadException.class);
        } finally {
            logger.detachAppender(logged);
        }
        assertThat(logged.list)
                .as("the operator is told what failed")
                .singleElement()
                .satisfies(event -> {
                    assertThat(event.getLevel()).isEqualTo(ch.qos.logback.classic.Level.ERROR);
                    assertThat(event.getFormattedMessage()).contains("archives/example.zip");
                    assertThat(event.getThrowableProxy().getMessage()).isEqualTo("the disk went away");
                });
        assertThatThrownBy(() -> archives.open(KEY))
                .isInstanceOf(CacheReadException.class)
                .hasCause(broken)
                .satisfies(failure -> assertThat(((Refusal) failure).kind()).isEqualTo(Refusal.Kind.UNAVAILABLE));
        assertThat(lookups("hit") + lookups("miss")).isZero();
    }

    @Test
    void withRedirectsAnArchiveTheSharedStoreHoldsIsRedirectedBeforeAnyLocalCopyIsOpened() throws Exception {
        StoredBlob committed = commit();
        disk.open(KEY).orElseThrow().close();
        BlobRedirect redirect = new BlobRedirect(URI.create("https://127.0.0.1:9000/bucket/archive?signed"), committed);
        AtomicInteger opens = new AtomicInteger();
        BlobStore redirecting = new Redirecting(disk, Optional.of(redirect), opens);

        ArchiveSource answer =
                archives(redirecting).get(KEY, CachedArchivesTest::noFetch).join();

        assertThat(answer).isEqualTo(new ArchiveSource.Redirected(redirect));
        assertThat(opens).hasValue(0);
        assertThat(executed).hasValue(1);
        assertThat(lookups("hit")).isEqualTo(1.0);
    }

    @Test
    void withRedirectsAnArchiveTheSharedStoreCannotRedirectIsServedFromTheLocalCopy() throws Exception {
        commit();
        AtomicInteger opens = new AtomicInteger();
        BlobStore redirecting = new Redirecting(disk, Optional.empty(), opens);

        ArchiveSource answer =
                archives(redirecting).get(KEY, CachedArchivesTest::noFetch).join();

        assertThat(read(answer)).isEqualTo(CONTENT);
        assertThat(opens).hasValue(1);
        assertThat(lookups("hit")).isEqualTo(1.0);
        assertThat(lookups("miss")).isZero();
    }

    /** A store that redirects ({@code cache.s3.redirectArchives}) with {@code redirect}, counting its opens. */
    private static final class Redirecting extends ForwardingBlobStore {
        private final Optional<BlobRedirect> redirect;
        private final AtomicInteger opens;

        Redirecting(BlobStore delegate, Optional<BlobRedirect> redirect, AtomicInteger opens) {
            super(delegate);
            this.redirect = redirect;
            this.opens = opens;
        }

        @Override
        public boolean redirects() {
            return true;
        }

        @Override
        public Optional<BlobRedirect> redirect(CacheKey key) {
            return redirect;
        }

        @Override
        public Optional<OpenBlob> open(CacheKey key) throws IOException {
            opens.incrementAndGet();
            return super.open(key);
        }

        @Override
        public Optional<OpenBlob> openVerified(CacheKey key) throws IOException {
            opens.incrementAndGet();
            return super.openVerified(key);
        }
    }
}
