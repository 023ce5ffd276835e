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
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A module's origin that hangs holds its host's lane: a version the mirror pinned is answered from its pin, which
 * needs no origin request, and must not wait on that lane; the registry API's answers come from the cache when the
 * lane is full, as when the origin fails.
 */
final class ModuleMirrorLanesTest {

    private static final String HOST = "stuck.test";
    private static final ModuleAddress MODULE = new ModuleAddress(HOST, "corp", "net", "aws");
    private static final ProviderVersion PINNED = new ProviderVersion("1.0.0");
    private static final ProviderVersion COLD = new ProviderVersion("2.0.0");

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
    private final class HangingModules implements ModuleOrigin {
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
        FileBlobStore blobs = new FileBlobStore(cache, clock);
        MirrorMetrics metrics = new MirrorMetrics(new SimpleMeterRegistry(), clock);
        FillBounds bounds = new FillBounds(8, 1, Duration.ofMinutes(1), 1024, Duration.ofSeconds(30));
        OriginFills fills = new OriginFills(
                bounds, 1 << 20, blobs, FillLeases.local(), pool, pool, metrics, RememberedFailures.NONE);
        EngineServices engine = new EngineServices(
                blobs, documents, fills, new OriginRules(Map.of()), pool, lanes, clock, metrics, DecisionLog.NONE);
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
                host -> new HangingModules(),
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
}
