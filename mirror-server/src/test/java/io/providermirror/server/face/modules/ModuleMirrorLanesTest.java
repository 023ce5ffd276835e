package io.providermirror.server.face.modules;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.providermirror.cache.FileBlobStore;
import io.providermirror.cache.FileDocumentStore;
import io.providermirror.cache.FillLeases;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.config.ModulePolicyConfig;
import io.providermirror.server.core.ArchiveSource;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.EngineServices;
import io.providermirror.server.core.FillBounds;
import io.providermirror.server.core.ModulePin;
import io.providermirror.server.core.OriginFills;
import io.providermirror.server.core.OriginRules;
import io.providermirror.server.core.RememberedFailures;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.tlog.DecisionLog;
import io.providermirror.upstream.HostLanes;
import io.providermirror.upstream.ModuleOrigin;
import io.providermirror.upstream.ModuleRegistryClient;
import io.providermirror.upstream.ModuleSource;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.verify.ArchiveLimits;
import io.providermirror.upstream.verify.ArchiveType;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What of a module's requests reaches its origin host's lane. An origin that hangs holds that lane: a version the
 * mirror pinned is answered from its pin, which needs no origin request, and must not wait on it; the registry API's
 * answers come from the cache when the lane is full, as when the origin fails. A cold version's source is asked once
 * for every request waiting for it.
 */
final class ModuleMirrorLanesTest {

    private static final String HOST = "stuck.test";
    private static final ModuleAddress MODULE = new ModuleAddress(HOST, "corp", "net", "aws");
    private static final ProviderVersion PINNED = new ProviderVersion("1.0.0");
    private static final ProviderVersion COLD = new ProviderVersion("2.0.0");
    private static final String LOCATION = "https://files.test/net-2.0.0.tar.gz";

    @TempDir
    Path cache;

    private final ExecutorService pool = Executors.newFixedThreadPool(8);
    private final CountDownLatch recovered = new CountDownLatch(1);
    private final CountDownLatch asked = new CountDownLatch(1);

    @AfterEach
    void stop() {
        recovered.countDown();
        pool.shutdownNow();
    }

    /** An origin that hangs on every source it is asked for, until {@link #recovered}. */
    private class HangingModules implements ModuleOrigin {
        @Override
        public ModuleRegistryClient.FetchedModuleVersions versions(ModuleAddress address) {
            throw new AssertionError("not asked");
        }

        @Override
        public ModuleRegistryClient.ResolvedSource source(ModuleAddress address, ProviderVersion version) {
            asked.countDown();
            try {
                recovered.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new OriginException(OriginException.Reason.UNAVAILABLE, "hung");
        }

        @Override
        public OriginHttpClient.ArchiveStream openArchive(
                ModuleAddress address, ProviderVersion version, ModuleSource source) {
            throw new AssertionError("not asked");
        }

        @Override
        public JsonNode api(String path, Map<String, String> query, String what) {
            throw new AssertionError("not asked");
        }
    }

    private final Clock clock = Clock.systemUTC();
    private FileDocumentStore documents;

    /** The module mirror over the cache, on {@code lanes}, its origin {@link HangingModules}. */
    private ModuleMirror modules(HostLanes lanes) throws Exception {
        return modules(lanes, pool, new HangingModules());
    }

    /** The module mirror over the cache, its work on {@code executor} and {@code lanes}, its origin {@code origin}. */
    private ModuleMirror modules(HostLanes lanes, Executor executor, ModuleOrigin origin) throws Exception {
        documents = documents == null ? new FileDocumentStore(cache, clock) : documents;
        FileBlobStore blobs = new FileBlobStore(cache, clock);
        MirrorMetrics metrics = new MirrorMetrics(new SimpleMeterRegistry(), clock);
        FillBounds bounds = new FillBounds(8, 8, Duration.ofMinutes(1), 1024, Duration.ofSeconds(30));
        OriginFills fills = new OriginFills(
                bounds, 1 << 20, blobs, FillLeases.local(), pool, pool, metrics, RememberedFailures.NONE);
        EngineServices engine = new EngineServices(
                blobs, documents, fills, new OriginRules(Map.of()), executor, lanes, clock, metrics, DecisionLog.NONE);
        return new ModuleMirror(
                new ModuleMirror.Settings(
                        Duration.ofMinutes(15),
                        Duration.ofMinutes(1),
                        Duration.ofMinutes(1),
                        false,
                        false,
                        new ArchiveLimits(1000, 1 << 20),
                        cache.resolve("work")),
                engine,
                host -> origin,
                null,
                new ModulePolicy(new ModulePolicyConfig(null, null)));
    }

    @Test
    void aPinnedDownloadIsAnsweredWhileItsOriginHangsOnAColdOne() throws Exception {
        documents = new FileDocumentStore(cache, clock);
        new CacheDocuments(documents)
                .writeModulePin(
                        MODULE,
                        PINNED,
                        new ModulePin(
                                "ARCHIVE",
                                "a".repeat(64),
                                10,
                                null,
                                "tar.gz",
                                "",
                                "https://stuck.test/m.tgz",
                                Instant.now(),
                                false));
        // Lanes one task wide: the hanging request holds its host's whole lane.
        ModuleMirror modules = modules(new HostLanes(pool, 1, 1000));

        // A client asks for a version never fetched: its source request hangs, holding the host's lane.
        CompletableFuture<ModuleDownload> cold = modules.download(MODULE, COLD);
        assertThat(asked.await(30, TimeUnit.SECONDS)).isTrue();

        // Another asks for the pinned version: its answer is the pin's, no origin request needed.
        CompletableFuture<ModuleDownload> pinned = modules.download(MODULE, PINNED);

        assertThat(pinned.get(60, TimeUnit.SECONDS).pinned())
                .as("the pinned version's download answer, from its pin")
                .isTrue();
        assertThat(cold).isNotDone();
    }

    @Test
    void aVersionsDetailsAreAnsweredFromTheCacheWhenItsOriginsLaneIsFull() throws Exception {
        documents = new FileDocumentStore(cache, clock);
        new CacheDocuments(documents).writeModuleVersionList(MODULE, List.of(PINNED));
        // One task wide, no room to wait: the hanging request below fills the lane.
        HostLanes lanes = new HostLanes(pool, 1, 0);
        ModuleMirror modules = modules(lanes);
        lanes.of(HOST).execute(() -> {
            try {
                recovered.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        ModuleApiAnswer answer = modules.catalog()
                .details(MODULE, PINNED, new ModuleLinks("https://mirror.test"))
                .get(30, TimeUnit.SECONDS);

        assertThat(answer.source()).isEqualTo(ModuleApiAnswer.Source.CACHE);
    }

    /** The tasks that reached a lane over {@link #laneTasks}, not yet run. */
    private final ConcurrentLinkedQueue<Runnable> laneTasks = new ConcurrentLinkedQueue<>();

    private final AtomicInteger sourcesAsked = new AtomicInteger();

    /** An origin that answers every version's source with one archive, and has no archive to give. */
    private final class CountingModules extends HangingModules {
        @Override
        public ModuleRegistryClient.ResolvedSource source(ModuleAddress address, ProviderVersion version) {
            sourcesAsked.incrementAndGet();
            return new ModuleRegistryClient.ResolvedSource(
                    LOCATION, ModuleSource.fromRegistry(LOCATION, URI.create("https://registry.test/download")));
        }

        @Override
        public OriginHttpClient.ArchiveStream openArchive(
                ModuleAddress address, ProviderVersion version, ModuleSource source) {
            throw new OriginException(OriginException.Reason.UNAVAILABLE, "no archive here");
        }
    }

    /**
     * A module version nobody fetched yet, asked for by many clients at once (a fleet of CI runners starting): its
     * origin is asked for its source once, not once per request, and that answer is never held, so the next request
     * after it asks again. What reaches the origin's lane is seen exactly: the lane runs over a pool that only collects
     * tasks, and everything else runs on the caller's thread.
     */
    @Test
    void downloadsAndArchiveRequestsOfAColdVersionAskItsOriginForTheSourceOnce() throws Exception {
        // Lanes as wide as the requests below: without the sharing, each would reach the pool.
        ModuleMirror modules = modules(new HostLanes(laneTasks::add, 16, 1000), Runnable::run, new CountingModules());
        List<CompletableFuture<ModuleDownload>> downloads = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            downloads.add(modules.download(MODULE, COLD));
        }
        List<CompletableFuture<ArchiveSource>> archives = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            archives.add(modules.archive(MODULE, COLD, "tar.gz"));
        }

        assertThat(laneTasks)
                .as("requests to the origin's lane for 4 downloads and 2 archives")
                .hasSize(1);
        runLaneTasks();

        assertThat(sourcesAsked).as("source requests to the origin").hasValue(1);
        for (CompletableFuture<ModuleDownload> download : downloads) {
            ModuleDownload answer = download.get(30, TimeUnit.SECONDS);
            assertThat(answer.type()).isEqualTo(ArchiveType.TAR_GZ);
            assertThat(answer.pinned()).isFalse();
        }
        for (CompletableFuture<ArchiveSource> archive : archives) {
            assertThat(archive).failsWithin(30, TimeUnit.SECONDS);
        }

        // Not held: the next request (the fetch failed, so there is no pin) asks the origin again.
        CompletableFuture<ModuleDownload> later = modules.download(MODULE, COLD);
        assertThat(laneTasks)
                .as("requests to the origin's lane for the next download")
                .hasSize(1);
        runLaneTasks();
        assertThat(later.get(30, TimeUnit.SECONDS).type()).isEqualTo(ArchiveType.TAR_GZ);
        assertThat(sourcesAsked).hasValue(2);
    }

    private void runLaneTasks() {
        for (Runnable task = laneTasks.poll(); task != null; task = laneTasks.poll()) {
            task.run();
        }
    }
}
