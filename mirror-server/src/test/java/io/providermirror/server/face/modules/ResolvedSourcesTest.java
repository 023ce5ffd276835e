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
import io.providermirror.server.core.EngineServices;
import io.providermirror.server.core.FillBounds;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A module version nobody fetched yet, asked for by many clients at once (a fleet of CI runners starting): its
 * origin is asked for its source once, not once per request, and that answer is never held, so the next request
 * after it asks again. What reaches the origin's lane is seen exactly: the lane runs over a pool that only collects
 * tasks, and everything else runs on the caller's thread.
 */
final class ResolvedSourcesTest {

    private static final ModuleAddress MODULE = new ModuleAddress("registry.test", "corp", "net", "aws");
    private static final ProviderVersion COLD = new ProviderVersion("2.0.0");
    private static final String LOCATION = "https://files.test/net-2.0.0.tar.gz";

    @TempDir
    Path cache;

    /** The tasks that reached the origin's lane, not yet run. */
    private final ConcurrentLinkedQueue<Runnable> laneTasks = new ConcurrentLinkedQueue<>();

    private final AtomicInteger sourcesAsked = new AtomicInteger();
    private final ExecutorService fillPool = Executors.newFixedThreadPool(2);
    private ModuleMirror modules;

    /** An origin that answers every version's source with one archive, and has no archive to give. */
    private final class CountingModules implements ModuleOrigin {
        @Override
        public ModuleRegistryClient.FetchedModuleVersions versions(ModuleAddress address) {
            throw new AssertionError("not asked");
        }

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

        @Override
        public JsonNode api(String path, Map<String, String> query, String what) {
            throw new AssertionError("not asked");
        }
    }

    @BeforeEach
    void start() throws Exception {
        Clock clock = Clock.systemUTC();
        FileBlobStore blobs = new FileBlobStore(cache, clock);
        FileDocumentStore documents = new FileDocumentStore(cache, clock);
        MirrorMetrics metrics = new MirrorMetrics(new SimpleMeterRegistry(), clock);
        FillBounds bounds = new FillBounds(8, 8, Duration.ofMinutes(1), 1024, Duration.ofSeconds(30));
        OriginFills fills = new OriginFills(
                bounds, 1 << 20, blobs, FillLeases.local(), fillPool, fillPool, metrics, RememberedFailures.NONE);
        // Lanes as wide as the requests below: without the sharing, each would reach the pool.
        HostLanes lanes = new HostLanes(laneTasks::add, 16, 1000);
        EngineServices engine = new EngineServices(
                blobs,
                documents,
                fills,
                new OriginRules(Map.of()),
                Runnable::run,
                lanes,
                clock,
                metrics,
                DecisionLog.NONE);
        modules = new ModuleMirror(
                new ModuleMirror.Settings(
                        Duration.ofMinutes(15),
                        Duration.ofMinutes(1),
                        Duration.ofMinutes(1),
                        false,
                        false,
                        new ArchiveLimits(1000, 1 << 20),
                        cache.resolve("work")),
                engine,
                host -> new CountingModules(),
                null,
                new ModulePolicy(new ModulePolicyConfig(null, null)));
    }

    @AfterEach
    void stop() {
        fillPool.shutdownNow();
    }

    @Test
    void downloadsAndArchiveRequestsOfAColdVersionAskItsOriginForTheSourceOnce() throws Exception {
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
