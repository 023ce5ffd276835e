package io.providermirror.server.providers;

import static io.providermirror.server.providers.ScriptedOrigin.ADDRESS;
import static io.providermirror.server.providers.ScriptedOrigin.PLATFORM;
import static io.providermirror.server.providers.ScriptedOrigin.VERSION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.providermirror.cache.BlobStore;
import io.providermirror.cache.ConditionalFillLeases;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.FileBlobStore;
import io.providermirror.cache.FileDocumentStore;
import io.providermirror.cache.FillLeases;
import io.providermirror.server.core.ArchiveSource;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.server.core.FillBounds;
import io.providermirror.server.metrics.MeterNames;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.testkit.SettableClock;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two instances of the core over one store and one set of lease objects in memory: the lease logic of the
 * archive path (who fetches, who waits, who takes over). The same against a real S3 API server is an IT.
 */
final class LeasedFillsTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    @TempDir
    Path cache;

    private final SettableClock clock = new SettableClock();
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final ScriptedOrigin origin = new ScriptedOrigin();
    private final MemoryLeaseObjects leaseObjects = new MemoryLeaseObjects();
    private BlobStore blobs;
    private DocumentStore documents;

    @BeforeEach
    void openStore() throws Exception {
        blobs = new FileBlobStore(cache, clock);
        documents = new FileDocumentStore(cache, clock);
    }

    @AfterEach
    void stop() {
        origin.archiveGate.countDown();
        executor.shutdownNow();
    }

    private record Instance(ProviderMirror mirror, SimpleMeterRegistry registry) {
        double leases(String outcome) {
            var counter = registry.find(MeterNames.FILL_LEASES)
                    .tag(MeterNames.OUTCOME, outcome)
                    .counter();
            return counter == null ? 0 : counter.count();
        }

        double lookups(String result) {
            var counter = registry.find(MeterNames.CACHE_LOOKUPS)
                    .tag(MeterNames.KIND, "index")
                    .tag(MeterNames.RESULT, result)
                    .counter();
            return counter == null ? 0 : counter.count();
        }
    }

    private Instance instance(String holder) throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        FillLeases leases = ConditionalFillLeases.open(leaseObjects, holder, LEASE, clock);
        ProviderMirror mirror = ProviderMirrors.open(
                new ProviderMirror.Settings(
                        Duration.ofMinutes(15),
                        64L << 20,
                        false,
                        Duration.ofSeconds(10),
                        16L << 20,
                        FillBounds.DEFAULT,
                        Duration.ofSeconds(30)),
                hostname -> origin,
                blobs,
                documents,
                leases,
                executor,
                clock,
                new MirrorMetrics(registry, clock),
                ScriptedOrigin.trustingRules(),
                io.providermirror.server.tlog.DecisionLog.NONE);
        return new Instance(mirror, registry);
    }

    private byte[] bytesOf(ArchiveSource source) throws Exception {
        try (source) {
            if (source instanceof ArchiveSource.Filling filling) {
                filling.fill().completion().get(10, TimeUnit.SECONDS);
                try (InputStream in = Channels.newInputStream(filling.fill().openReader())) {
                    return in.readAllBytes();
                }
            }
            try (InputStream in = Channels.newInputStream(((ArchiveSource.Cached) source).channel())) {
                return in.readAllBytes();
            }
        }
    }

    @Test
    void aStaleVersionListRefreshedByOneInstanceIsAdoptedByTheOtherFromTheStore() throws Exception {
        Instance a = instance("a");
        Instance b = instance("b");
        ProviderMirrors.networkMirror(a.mirror()).versionIndex(ADDRESS).get(10, TimeUnit.SECONDS);
        ProviderMirrors.networkMirror(b.mirror()).versionIndex(ADDRESS).get(10, TimeUnit.SECONDS);
        assertThat(origin.versionCalls).as("b read a's list from the store").hasValue(1);

        clock.advance(Duration.ofMinutes(16));
        ProviderMirrors.networkMirror(a.mirror()).versionIndex(ADDRESS).get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(10)).until(() -> origin.versionCalls.get() == 2);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> documents
                        .read(CacheLayout.versions(ADDRESS))
                        .orElseThrow()
                        .storedAt()
                        .equals(clock.instant()));
        double hitsBefore = b.lookups("hit");
        ProviderMirrors.networkMirror(b.mirror()).versionIndex(ADDRESS).get(10, TimeUnit.SECONDS);
        assertThat(b.lookups("stale")).isEqualTo(1);
        // Once its background refresh is done, b answers with a fresh list.
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            ProviderMirrors.networkMirror(b.mirror()).versionIndex(ADDRESS).get(10, TimeUnit.SECONDS);
            return b.lookups("hit") > hitsBefore;
        });

        assertThat(origin.versionCalls).as("b adopted a's refresh").hasValue(2);
    }

    @Test
    void aRefreshIsSkippedWhileAnotherInstanceHoldsItsLease() throws Exception {
        FillLeases other = ConditionalFillLeases.open(leaseObjects, "other", LEASE, clock);
        FillLeases mine = ConditionalFillLeases.open(leaseObjects, "mine", LEASE, clock);
        io.providermirror.cache.CacheKey key = CacheLayout.versions(ADDRESS);
        var held = other.tryAcquire(key).orElseThrow();
        java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();

        assertThat(new RefreshLease(mine).runIfGranted(key, runs::incrementAndGet))
                .isFalse();
        held.release();
        assertThat(new RefreshLease(mine).runIfGranted(key, runs::incrementAndGet))
                .isTrue();
        assertThat(runs).hasValue(1);
        assertThat(leaseObjects.size()).isZero();
    }

    @Test
    void eightColdClientsSplitOverTwoInstancesCauseOneOriginFetchAndAllGetTheArchive() throws Exception {
        Instance a = instance("a");
        Instance b = instance("b");
        origin.archiveGate = new CountDownLatch(1);

        List<CompletableFuture<ArchiveSource>> onA = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            onA.add(a.mirror().archive(ADDRESS, VERSION, PLATFORM));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> origin.archiveOpens.get() == 1);
        List<CompletableFuture<ArchiveSource>> onB = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            onB.add(b.mirror().archive(ADDRESS, VERSION, PLATFORM));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> b.leases("waited") == 1);
        origin.archiveGate.countDown();

        for (CompletableFuture<ArchiveSource> request : onA) {
            assertThat(bytesOf(request.get(10, TimeUnit.SECONDS))).isEqualTo(origin.archive);
        }
        for (CompletableFuture<ArchiveSource> request : onB) {
            ArchiveSource source = request.get(10, TimeUnit.SECONDS);
            assertThat(source).isInstanceOf(ArchiveSource.Cached.class);
            assertThat(bytesOf(source)).isEqualTo(origin.archive);
        }
        assertThat(origin.archiveOpens).hasValue(1);
        assertThat(a.leases("acquired")).isEqualTo(1);
        assertThat(b.leases("committed_elsewhere")).isEqualTo(1);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(leaseObjects.size())
                        .as("the holder released its lease")
                        .isZero());
    }

    @Test
    void theLeaseOfAHolderThatDiedIsTakenOverWhenItExpiresAndTheArchiveFetchedOnce() throws Exception {
        Instance b = instance("b");
        // An instance that took the lease and died: it never renews nor releases it.
        FillLeases dead = ConditionalFillLeases.open(leaseObjects, "dead", LEASE, clock);
        assertThat(dead.tryAcquire(io.providermirror.server.core.CacheLayout.archive(ADDRESS, VERSION, PLATFORM)))
                .isPresent();

        CompletableFuture<ArchiveSource> request = b.mirror().archive(ADDRESS, VERSION, PLATFORM);
        await().atMost(Duration.ofSeconds(10)).until(() -> b.leases("waited") == 1);
        assertThat(request).isNotDone();
        assertThat(origin.archiveOpens).hasValue(0);

        clock.advance(LEASE.plusSeconds(1));

        assertThat(bytesOf(request.get(10, TimeUnit.SECONDS))).isEqualTo(origin.archive);
        assertThat(b.leases("taken_over")).isEqualTo(1);
        assertThat(origin.archiveOpens).hasValue(1);
    }

    @Test
    void aWaitingInstanceFetchesItselfWhenTheHolderFailsAndReleasesTheLease() throws Exception {
        Instance a = instance("a");
        Instance b = instance("b");
        origin.archiveGate = new CountDownLatch(1);
        origin.archiveFailures.set(1);
        CompletableFuture<ArchiveSource> first = a.mirror().archive(ADDRESS, VERSION, PLATFORM);
        await().atMost(Duration.ofSeconds(10)).until(() -> origin.archiveOpens.get() == 1);
        CompletableFuture<ArchiveSource> second = b.mirror().archive(ADDRESS, VERSION, PLATFORM);
        await().atMost(Duration.ofSeconds(10)).until(() -> b.leases("waited") == 1);

        origin.archiveGate.countDown();
        await().atMost(Duration.ofSeconds(10)).until(first::isDone);
        assertThat(first).isCompletedExceptionally();

        assertThat(bytesOf(second.get(10, TimeUnit.SECONDS))).isEqualTo(origin.archive);
        assertThat(b.leases("acquired")).isEqualTo(1);
        assertThat(origin.archiveOpens).hasValue(2);
    }
}
