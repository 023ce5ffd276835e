package io.providermirror.server.providers;

import static io.providermirror.server.providers.ScriptedOrigin.ADDRESS;
import static io.providermirror.server.providers.ScriptedOrigin.PLATFORM;
import static io.providermirror.server.providers.ScriptedOrigin.VERSION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.providermirror.cache.BlobStore;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.ConditionalFillLeases;
import io.providermirror.cache.FileBlobStore;
import io.providermirror.cache.FileDocumentStore;
import io.providermirror.cache.FillLeases;
import io.providermirror.cache.LeaseObjects;
import io.providermirror.cache.OpenBlob;
import io.providermirror.cache.RemoteStoreListener;
import io.providermirror.cache.StoredBlob;
import io.providermirror.s3.LocalCopyDocumentStore;
import io.providermirror.s3.S3BlobStore;
import io.providermirror.s3.S3Bucket;
import io.providermirror.s3.S3DocumentStore;
import io.providermirror.s3.S3LeaseObjects;
import io.providermirror.s3.S3Settings;
import io.providermirror.server.core.ArchiveSource;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.server.core.FillBounds;
import io.providermirror.server.metrics.MeterNames;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.testkit.ForwardingBlobStore;
import io.providermirror.testkit.S3ProxyServer;
import io.providermirror.testkit.SettableClock;
import io.providermirror.upstream.verify.PackageHashes;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * Two instances of the core on one bucket of a real S3 API server (S3Proxy 3.0.0 on loopback), each with its own
 * client, local tier and lease holder: who fetches, who waits, who takes over, and what the store is asked.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class SharedBucketTest {

    private static final String BUCKET = "fleet";
    private static final Duration LEASE = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    private S3ProxyServer s3;
    private final SettableClock clock = new SettableClock();
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private ScriptedOrigin origin;
    private final List<S3Bucket> buckets = new ArrayList<>();
    private String prefix;

    @BeforeAll
    void startS3(@TempDir Path root) {
        s3 = S3ProxyServer.start(root);
        s3.createBucket(BUCKET);
    }

    @AfterAll
    void stopS3() {
        executor.shutdownNow();
        s3.close();
    }

    @BeforeEach
    void newOrigin() {
        origin = new ScriptedOrigin();
    }

    @AfterEach
    void closeClients() {
        origin.archiveGate.countDown();
        buckets.forEach(S3Bucket::close);
        buckets.clear();
        prefix = null;
    }

    /** Store requests by operation and outcome, as the instance's listener hears them. */
    private static final class Requests implements RemoteStoreListener {
        final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
        /** Every request in the order they ended. */
        final List<String> order = new CopyOnWriteArrayList<>();

        @Override
        public void request(String operation, String outcome, Duration latency) {
            counts.computeIfAbsent(operation + ":" + outcome, k -> new AtomicLong())
                    .incrementAndGet();
            order.add(operation + ":" + outcome);
        }

        Map<String, Long> snapshot() {
            Map<String, Long> now = new TreeMap<>();
            counts.forEach((k, v) -> {
                if (!k.startsWith("local_")) {
                    now.put(k, v.get());
                }
            });
            return now;
        }

        @Override
        public void localTierHit() {
            counts.computeIfAbsent("local_tier_hit", k -> new AtomicLong()).incrementAndGet();
        }

        @Override
        public void localCopyRead() {
            counts.computeIfAbsent("local_copy_read", k -> new AtomicLong()).incrementAndGet();
        }

        long total() {
            return counts.entrySet().stream()
                    .filter(e -> !e.getKey().startsWith("local_"))
                    .mapToLong(e -> e.getValue().get())
                    .sum();
        }

        void clear() {
            counts.clear();
            order.clear();
        }
    }

    private record Instance(ProviderMirror mirror, SimpleMeterRegistry registry, Requests requests) {
        double leases(String outcome) {
            var counter = registry.find(MeterNames.FILL_LEASES)
                    .tag(MeterNames.OUTCOME, outcome)
                    .counter();
            return counter == null ? 0 : counter.count();
        }
    }

    private S3Settings settings() {
        if (prefix == null) {
            prefix = "t" + UUID.randomUUID() + "/";
        }
        return new S3Settings(Optional.of(s3.endpoint()), BUCKET, "us-east-1", true, prefix);
    }

    private Instance instance(String holder) throws Exception {
        return instance(holder, 16L << 20, false);
    }

    /**
     * An instance as {@code cache.s3} builds one when {@code localCopies}: its documents copied into its directory.
     *
     * @param metadataBytes the memory for metadata; 1 keeps nothing, so every answer reads its documents
     */
    private Instance instance(String holder, long metadataBytes, boolean localCopies) throws Exception {
        return instance(holder, metadataBytes, localCopies, null);
    }

    /**
     * As above; with {@code blind}, the instance's blob store misses every archive while it is true, and the
     * instance's first lease write sets it false: a commit by another instance lands between its looks and its lease.
     */
    private Instance instance(String holder, long metadataBytes, boolean localCopies, AtomicBoolean blind)
            throws Exception {
        Requests requests = new Requests();
        S3Settings settings = settings();
        S3Bucket bucket = new S3Bucket(
                S3Bucket.client(
                        settings,
                        StaticCredentialsProvider.create(
                                AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))),
                settings,
                requests);
        buckets.add(bucket);
        LeaseObjects leaseObjects =
                blind == null ? new S3LeaseObjects(bucket) : new Unblinding(new S3LeaseObjects(bucket), blind);
        FillLeases leases = ConditionalFillLeases.open(leaseObjects, holder, LEASE, clock);
        BlobStore blobs = new S3BlobStore(
                bucket,
                new FileBlobStore(tmp.resolve(holder + "-" + UUID.randomUUID()), clock),
                Long.MAX_VALUE,
                5 * 1024 * 1024,
                clock);
        if (blind != null) {
            blobs = new Blind(blobs, blind);
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ProviderMirror mirror = ProviderMirrors.open(
                new ProviderMirror.Settings(
                        Duration.ofMinutes(15),
                        64L << 20,
                        false,
                        Duration.ofSeconds(10),
                        metadataBytes,
                        FillBounds.DEFAULT,
                        Duration.ofSeconds(30)),
                hostname -> this.origin,
                blobs,
                localCopies
                        ? new LocalCopyDocumentStore(
                                new S3DocumentStore(bucket, clock),
                                new FileDocumentStore(tmp.resolve(holder + "-documents-" + UUID.randomUUID()), clock),
                                requests)
                        : new S3DocumentStore(bucket, clock),
                leases,
                executor,
                clock,
                new MirrorMetrics(registry, clock),
                ScriptedOrigin.trustingRules(),
                io.providermirror.server.tlog.DecisionLog.NONE);
        return new Instance(mirror, registry, requests);
    }

    private static byte[] bytesOf(ArchiveSource source) throws Exception {
        try (source) {
            if (source instanceof ArchiveSource.Filling filling) {
                filling.fill().completion().get(30, TimeUnit.SECONDS);
                try (InputStream in = Channels.newInputStream(filling.fill().openReader())) {
                    return in.readAllBytes();
                }
            }
            try (InputStream in = Channels.newInputStream(((ArchiveSource.Cached) source).channel())) {
                return in.readAllBytes();
            }
        }
    }

    private static byte[] fetch(Instance instance) throws Exception {
        return bytesOf(instance.mirror().archive(ADDRESS, VERSION, PLATFORM).get(30, TimeUnit.SECONDS));
    }

    /** What {@code terraform init} asks of an instance for one provider: the index, the version, the archive. */
    private static void init(Instance instance) throws Exception {
        ProviderMirrors.networkMirror(instance.mirror()).versionIndex(ADDRESS).get(30, TimeUnit.SECONDS);
        ProviderMirrors.networkMirror(instance.mirror())
                .versionDocument(ADDRESS, VERSION, "anonymous")
                .get(30, TimeUnit.SECONDS);
        assertThat(fetch(instance)).isNotEmpty();
    }

    @Test
    void anArchiveFetchedThroughOneInstanceIsServedByTheOtherWithNoOriginRequest() throws Exception {
        Instance a = instance("a");
        Instance b = instance("b");
        // Start-up requests (the lease probe, the bucket's listing) are not part of an init.
        a.requests().clear();
        b.requests().clear();

        init(a);
        long coldStoreRequests = a.requests().total();
        init(b);
        long otherInstanceStoreRequests = b.requests().total();
        String otherInstanceCounts = b.requests().counts.toString();
        b.requests().clear();
        init(b);
        long warmStoreRequests = b.requests().total();

        assertThat(origin.archiveOpens).hasValue(1);
        assertThat(origin.versionCalls).hasValue(1);
        assertThat(origin.releaseCalls).hasValue(1);
        assertThat(b.leases("acquired")).isZero();
        // The capacity model in the README ("Running several instances") is made of these figures.
        System.out.printf(
                "store requests per init of one provider: cold fleet %d %s; warm bucket, cold instance %d %s; warm"
                        + " instance %d %s%n",
                coldStoreRequests,
                a.requests().counts,
                otherInstanceStoreRequests,
                otherInstanceCounts,
                warmStoreRequests,
                b.requests().counts);
        assertThat(warmStoreRequests)
                .as("a warm instance answers from memory and its local tier")
                .isZero();
    }

    @Test
    void withItsMetadataOutOfMemoryAnInstanceAnswersFromItsLocalCopiesWhileTheBucketIsDown() throws Exception {
        Instance a = instance("a", 1, true);
        init(a);
        assertThat(origin.versionCalls).hasValue(1);
        assertThat(origin.releaseCalls).hasValue(1);

        s3.stop();
        try {
            assertThat(ProviderMirrors.networkMirror(a.mirror())
                            .versionIndex(ADDRESS)
                            .get(30, TimeUnit.SECONDS)
                            .json())
                    .isNotEmpty();
            assertThat(new String(
                            ProviderMirrors.networkMirror(a.mirror())
                                    .versionDocument(ADDRESS, VERSION, "anonymous")
                                    .get(30, TimeUnit.SECONDS)
                                    .json(),
                            java.nio.charset.StandardCharsets.UTF_8))
                    .contains("zh:");
            assertThat(fetch(a)).as("from the local tier").isEqualTo(origin.archive);
        } finally {
            s3.start();
        }
        assertThat(a.requests().counts.get("local_copy_read"))
                .as("nothing in memory: the version list and the release evidence from their copies")
                .hasValueGreaterThanOrEqualTo(2);
        assertThat(origin.versionCalls).as("not from the origin").hasValue(1);
        assertThat(origin.releaseCalls).hasValue(1);
    }

    @Test
    void eightColdClientsSplitOverTwoInstancesCauseOneOriginFetchAndAllGetTheArchive() throws Exception {
        Instance a = instance("a");
        Instance b = instance("b");
        ProviderMirrors.networkMirror(a.mirror())
                .versionDocument(ADDRESS, VERSION, "anonymous")
                .get(30, TimeUnit.SECONDS);
        ProviderMirrors.networkMirror(b.mirror())
                .versionDocument(ADDRESS, VERSION, "anonymous")
                .get(30, TimeUnit.SECONDS);
        origin.archiveGate = new CountDownLatch(1);

        List<CompletableFuture<ArchiveSource>> requests = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            requests.add((i % 2 == 0 ? a : b).mirror().archive(ADDRESS, VERSION, PLATFORM));
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> a.leases("waited") + b.leases("waited") == 1 && origin.archiveOpens.get() == 1);
        origin.archiveGate.countDown();

        for (CompletableFuture<ArchiveSource> request : requests) {
            assertThat(bytesOf(request.get(30, TimeUnit.SECONDS))).isEqualTo(origin.archive);
        }
        assertThat(origin.archiveOpens).hasValue(1);
        assertThat(a.leases("acquired") + b.leases("acquired")).isEqualTo(1);
        assertThat(a.leases("committed_elsewhere") + b.leases("committed_elsewhere"))
                .isEqualTo(1);
    }

    @Test
    void theLeaseOfAHolderThatDiedMidFillIsTakenOverAndNothingPartialIsServed() throws Exception {
        Instance b = instance("b");
        ProviderMirrors.networkMirror(b.mirror())
                .versionDocument(ADDRESS, VERSION, "anonymous")
                .get(30, TimeUnit.SECONDS);
        // An instance that took the lease and died mid-fill: its lease stays in the bucket, unrenewed.
        FillLeases dead = ConditionalFillLeases.open(new S3LeaseObjects(buckets.get(0)), "dead", LEASE, clock);
        CacheKey key = CacheLayout.archive(ADDRESS, VERSION, PLATFORM);
        assertThat(dead.tryAcquire(key)).isPresent();

        CompletableFuture<ArchiveSource> request = b.mirror().archive(ADDRESS, VERSION, PLATFORM);
        await().atMost(Duration.ofSeconds(30)).until(() -> b.leases("waited") == 1);
        assertThat(request).isNotDone();
        clock.advance(LEASE.plusSeconds(1));

        assertThat(bytesOf(request.get(30, TimeUnit.SECONDS))).isEqualTo(origin.archive);
        assertThat(b.leases("taken_over")).isEqualTo(1);
        assertThat(origin.archiveOpens).hasValue(1);
    }

    @Test
    void theStoreStoppedMidFillFailsItsClientsClearlyAndAfterItsRestartTheArchiveIsFetchedWhole() throws Exception {
        Instance a = instance("a");
        Instance b = instance("b");
        ProviderMirrors.networkMirror(a.mirror())
                .versionDocument(ADDRESS, VERSION, "anonymous")
                .get(30, TimeUnit.SECONDS);
        ProviderMirrors.networkMirror(b.mirror())
                .versionDocument(ADDRESS, VERSION, "anonymous")
                .get(30, TimeUnit.SECONDS);
        origin.archiveGate = new CountDownLatch(1);
        CompletableFuture<ArchiveSource> onA = a.mirror().archive(ADDRESS, VERSION, PLATFORM);
        await().atMost(Duration.ofSeconds(30)).until(() -> origin.archiveOpens.get() == 1);
        CompletableFuture<ArchiveSource> onB = b.mirror().archive(ADDRESS, VERSION, PLATFORM);
        await().atMost(Duration.ofSeconds(30)).until(() -> b.leases("waited") == 1);

        s3.stop();
        try {
            origin.archiveGate.countDown();
            await().atMost(Duration.ofSeconds(60)).until(() -> onA.isDone() && onB.isDone());
            // a's clients followed the fill, which could not commit: their archive never completes.
            if (!onA.isCompletedExceptionally()) {
                ArchiveSource.Filling filling = (ArchiveSource.Filling) onA.join();
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> filling.fill().completion().isDone());
                assertThat(filling.fill().completion()).isCompletedExceptionally();
                assertThat(filling.fill().readableBytes()).isLessThan(origin.archive.length);
                filling.close();
            }
            assertThat(onB).isCompletedExceptionally();
        } finally {
            s3.start();
        }
        // a could not release its lease while the store was down: it expires, and b takes it over.
        clock.advance(LEASE.plusSeconds(1));
        assertThat(fetch(b)).isEqualTo(origin.archive);
        assertThat(fetch(a)).isEqualTo(origin.archive);
        assertThat(PackageHashes.sha256().digest(fetch(instance("c"))))
                .isEqualTo(PackageHashes.sha256().digest(origin.archive));
    }

    @Test
    void aColdFillLooksForTheArchiveInTheBucketOnceBeforeItsLeaseAndOnceAfterItIsGranted() throws Exception {
        Instance a = instance("a");
        ProviderMirrors.networkMirror(a.mirror()).versionIndex(ADDRESS).get(30, TimeUnit.SECONDS);
        ProviderMirrors.networkMirror(a.mirror())
                .versionDocument(ADDRESS, VERSION, "anonymous")
                .get(30, TimeUnit.SECONDS);
        a.requests().clear();

        assertThat(fetch(a)).isEqualTo(origin.archive);
        // The lease is removed after the commit, so after the client's last byte.
        await().atMost(Duration.ofSeconds(30)).until(() -> a.requests().counts.containsKey("delete_lease:ok"));

        assertThat(a.requests().order.subList(0, 5))
                .as("before the origin is asked: the archive missed in the bucket, the lease (read, created, read"
                        + " back), and the archive looked for again now that no other instance can be committing it")
                .containsExactly("get:missing", "get_lease:missing", "put_lease:ok", "get_lease:ok", "head:missing");
        assertThat(a.requests().snapshot())
                .as("the archive request of one cold provider (an archive small enough for one upload)")
                .isEqualTo(new TreeMap<>(Map.of(
                        "get:missing", 2L, // the archive; hashes.json before its h1: is added
                        "head:missing", 1L, // the archive, after the lease is granted
                        "get_lease:missing", 1L,
                        "put_lease:ok", 1L,
                        "get_lease:ok", 2L, // read back after the create, read before the release
                        "delete_lease:ok", 1L,
                        "put:ok", 2L, // the temporary object, hashes.json
                        "head:ok", 2L, // the temporary object, then the archive's object after the copy
                        "copy:ok", 1L,
                        "delete:ok", 1L))); // the temporary object
        assertThat(origin.archiveOpens).hasValue(1);
    }

    @Test
    void anArchiveCommittedByAnotherInstanceBetweenThisOnesLookAndItsLeaseIsNotFetchedAgain() throws Exception {
        Instance a = instance("a");
        init(a);
        AtomicBoolean blind = new AtomicBoolean(true);
        Instance b = instance("b", 16L << 20, false, blind);
        b.requests().clear();

        init(b);

        assertThat(blind).as("b missed the archive until it wrote its lease").isFalse();
        assertThat(origin.archiveOpens)
                .as("a's commit is found once b's lease is granted")
                .hasValue(1);
        assertThat(b.leases("acquired")).isEqualTo(1);
        assertThat(b.leases("committed_elsewhere")).isEqualTo(1);
    }

    /** Lease objects that end {@link Blind}'s blindness at the first lease written. */
    private record Unblinding(LeaseObjects delegate, AtomicBoolean blind) implements LeaseObjects {
        @Override
        public Optional<String> createIfAbsent(String name, byte[] content) throws java.io.IOException {
            if (!name.contains("/probe/")) {
                blind.set(false);
            }
            return delegate.createIfAbsent(name, content);
        }

        @Override
        public Optional<Versioned> read(String name) throws java.io.IOException {
            return delegate.read(name);
        }

        @Override
        public Optional<String> replaceIfMatch(String name, byte[] content, String etag) throws java.io.IOException {
            return delegate.replaceIfMatch(name, content, etag);
        }

        @Override
        public void delete(String name) throws java.io.IOException {
            delegate.delete(name);
        }
    }

    /** A blob store that finds no archive while {@code blind}: its looks came before another instance's commit. */
    private static final class Blind extends ForwardingBlobStore {
        private final AtomicBoolean blind;

        Blind(BlobStore delegate, AtomicBoolean blind) {
            super(delegate);
            this.blind = blind;
        }

        @Override
        public Optional<StoredBlob> find(CacheKey key) throws java.io.IOException {
            return blind.get() ? Optional.empty() : super.find(key);
        }

        @Override
        public Optional<StoredBlob> findLocal(CacheKey key) throws java.io.IOException {
            return blind.get() ? Optional.empty() : super.findLocal(key);
        }

        @Override
        public Optional<OpenBlob> open(CacheKey key) throws java.io.IOException {
            return blind.get() ? Optional.empty() : super.open(key);
        }

        @Override
        public Optional<OpenBlob> openVerified(CacheKey key) throws java.io.IOException {
            return blind.get() ? Optional.empty() : super.openVerified(key);
        }
    }
}
