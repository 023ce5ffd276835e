package io.providermirror.server.providers;

import static io.providermirror.server.providers.ScriptedOrigin.ADDRESS;
import static io.providermirror.server.providers.ScriptedOrigin.PLATFORM;
import static io.providermirror.server.providers.ScriptedOrigin.VERSION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.providermirror.cache.FileBlobStore;
import io.providermirror.cache.FileDocumentStore;
import io.providermirror.cache.FillLeases;
import io.providermirror.server.core.ArchiveSource;
import io.providermirror.server.core.FillBounds;
import io.providermirror.server.core.OriginRules;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.testkit.SettableClock;
import io.providermirror.upstream.verify.VerificationException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pull-through core's rules, against an origin in memory: no network, no server. */
final class ProviderMirrorCoreTest {

    private static final Duration TTL = Duration.ofMinutes(15);

    @TempDir
    Path cache;

    private final SettableClock clock = new SettableClock();
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final ScriptedOrigin origin = new ScriptedOrigin();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private ProviderMirror mirror(OriginRules rules) throws Exception {
        return mirror(rules, io.providermirror.server.tlog.DecisionLog.NONE);
    }

    private ProviderMirror mirror(OriginRules rules, io.providermirror.server.tlog.DecisionLog decisions)
            throws Exception {
        return ProviderMirrors.open(
                new ProviderMirror.Settings(
                        TTL,
                        64L << 20,
                        false,
                        Duration.ofSeconds(10),
                        16L << 20,
                        FillBounds.DEFAULT,
                        Duration.ofSeconds(30)),
                hostname -> origin,
                new FileBlobStore(cache, clock),
                new FileDocumentStore(cache, clock),
                FillLeases.local(),
                executor,
                clock,
                MirrorMetrics.discarding(),
                rules,
                decisions);
    }

    private ProviderMirror mirror() throws Exception {
        return mirror(ScriptedOrigin.trustingRules());
    }

    private static String text(RenderedDocument document) {
        return new String(document.json(), StandardCharsets.UTF_8);
    }

    /** Fetches the archive through {@code mirror} to its end; the fill's failure, if it failed. */
    private static Throwable fetchArchive(ProviderMirror mirror) {
        return catchThrowable(() -> {
            try (ArchiveSource source =
                    mirror.archive(ADDRESS, VERSION, PLATFORM).get(10, TimeUnit.SECONDS)) {
                if (source instanceof ArchiveSource.Filling filling) {
                    filling.fill().completion().get(10, TimeUnit.SECONDS);
                }
            }
        });
    }

    /**
     * What fails after an archive is committed (here its transparency-log entry) is reported as that, and the archive
     * stays cached and served: never as a failed fetch.
     */
    @Test
    void aFailureAfterTheCommitLeavesTheArchiveCachedAndIsReportedAsWhatItIs() throws Exception {
        ProviderMirror mirror = mirror(ScriptedOrigin.trustingRules(), decision -> {
            if (decision.kind().equals("archive.committed")) {
                throw new IllegalStateException("the transparency log is closed");
            }
        });
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> log =
                new ch.qos.logback.core.read.ListAppender<>();
        log.start();
        ch.qos.logback.classic.Logger archives =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(Archives.class);
        archives.addAppender(log);
        try {
            assertThat(fetchArchive(mirror)).isNull();
            // The clients are answered at the commit; what follows it runs on.
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                synchronized (log) {
                    assertThat(log.list)
                            .extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                            .anyMatch(line -> line.startsWith("cached " + ADDRESS + " " + VERSION + " " + PLATFORM)
                                    && line.endsWith("but its transparency-log entry could not be recorded"));
                }
            });
            assertThat(fetchArchive(mirror)).as("served from the cache").isNull();
        } finally {
            archives.detachAppender(log);
        }

        assertThat(origin.archiveOpens).hasValue(1);
        synchronized (log) {
            assertThat(log.list)
                    .extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                    .noneMatch(line -> line.startsWith("fetching the archive of"));
        }
    }

    /**
     * Each step after the commit is its own: when recording the archive's {@code h1:} fails (here a listener of the
     * known hashes), the transparency log still gets the archive's entry, with the hash that was computed.
     */
    @Test
    void aFailureToRecordTheH1HashStillLeavesTheArchivesLogEntry() throws Exception {
        List<io.providermirror.server.tlog.Decision> recorded = new java.util.concurrent.CopyOnWriteArrayList<>();
        ProviderMirror mirror = mirror(ScriptedOrigin.trustingRules(), recorded::add);
        mirror.knownHashes().addListener((address, version, hashes) -> {
            throw new IllegalStateException("a listener of the known hashes failed");
        });

        assertThat(fetchArchive(mirror)).isNull();
        assertThat(mirror.awaitBackgroundWork(Duration.ofSeconds(10))).isTrue();

        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(recorded)
                        .filteredOn(decision -> decision.kind().equals("archive.committed"))
                        .singleElement()
                        .satisfies(decision -> assertThat(decision.fields())
                                .containsEntry("provider", ADDRESS.toString())
                                .hasEntrySatisfying(
                                        "h1", h1 -> assertThat(h1.toString()).startsWith("h1:"))));
        assertThat(fetchArchive(mirror)).as("served from the cache").isNull();
        assertThat(origin.archiveOpens).hasValue(1);
    }

    @Test
    void concurrentMissesOfOneVersionListAndOneReleaseMakeOneOriginCallEach() throws Exception {
        ProviderMirror mirror = mirror();
        origin.versionsGate = new CountDownLatch(1);
        List<CompletableFuture<RenderedDocument>> indexes = new ArrayList<>();
        List<CompletableFuture<RenderedDocument>> documents = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            indexes.add(ProviderMirrors.networkMirror(mirror).versionIndex(ADDRESS));
            documents.add(ProviderMirrors.networkMirror(mirror).versionDocument(ADDRESS, VERSION, "anonymous"));
        }
        origin.versionsGate.countDown();

        for (int i = 0; i < 8; i++) {
            assertThat(text(indexes.get(i).get(10, TimeUnit.SECONDS))).isEqualTo("{\"versions\":{\"1.2.0\":{}}}");
            assertThat(text(documents.get(i).get(10, TimeUnit.SECONDS))).contains("linux_amd64");
        }
        assertThat(origin.versionCalls).hasValue(1);
        assertThat(origin.releaseCalls).hasValue(1);
    }

    @Test
    void aStaleVersionListIsServedAtOnceWhileItsOriginHangsAndThenFails() throws Exception {
        ProviderMirror mirror = mirror();
        String fresh =
                text(ProviderMirrors.networkMirror(mirror).versionIndex(ADDRESS).get(10, TimeUnit.SECONDS));
        origin.versionsGate = new CountDownLatch(1);
        origin.failing = true;
        clock.advance(TTL.plusMinutes(1));

        // Asked from another thread, so that a request which waited for the refresh would show as a timeout here.
        assertThat(text(CompletableFuture.supplyAsync(
                                () -> ProviderMirrors.networkMirror(mirror).versionIndex(ADDRESS))
                        .thenCompose(f -> f)
                        .get(2, TimeUnit.SECONDS)))
                .isEqualTo(fresh);
        origin.versionsGate.countDown();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(origin.versionCalls).hasValue(2));
        assertThat(text(ProviderMirrors.networkMirror(mirror)
                        .versionIndex(ADDRESS)
                        .get(10, TimeUnit.SECONDS)))
                .isEqualTo(fresh);
        assertThat(mirror.allowedVersions(ADDRESS).get(10, TimeUnit.SECONDS)).containsExactly(VERSION);
    }

    @Test
    void aReleaseReadBackFromDiskIsVerifiedAgainUnderTheRulesOfTheDay() throws Exception {
        ProviderMirrors.networkMirror(mirror())
                .versionDocument(ADDRESS, VERSION, "anonymous")
                .get(10, TimeUnit.SECONDS);
        assertThat(origin.releaseCalls).hasValue(1);

        // A restart with the same rules trusts the evidence on disk once it verifies again: no origin call.
        ProviderMirror restarted = mirror();
        assertThat(restarted.storedRelease(ADDRESS, VERSION)).isPresent();
        assertThat(text(ProviderMirrors.networkMirror(restarted)
                        .versionDocument(ADDRESS, VERSION, "anonymous")
                        .get(10, TimeUnit.SECONDS)))
                .contains("linux_amd64");
        assertThat(origin.releaseCalls).hasValue(1);

        // Without the parent mirror configured, its word on disk no longer verifies, so the origin is asked again.
        ProviderMirror untrusting = mirror(new OriginRules(java.util.Map.of()));
        assertThat(untrusting.storedRelease(ADDRESS, VERSION)).isEmpty();
        assertThat(catchThrowable(() -> ProviderMirrors.networkMirror(untrusting)
                        .versionDocument(ADDRESS, VERSION, "anonymous")
                        .get(10, TimeUnit.SECONDS)))
                .as("the origin's parent-mirror evidence, for a host configured without mirrorUrl")
                .isNotNull();
        assertThat(origin.releaseCalls).hasValue(2);
    }

    @Test
    void anArchiveWhoseSha256DiffersIsNotCommitted() throws Exception {
        ProviderMirror mirror = mirror();
        origin.tampering = true;

        assertThat(fetchArchive(mirror)).hasRootCauseInstanceOf(VerificationException.class);

        // Nothing was committed: the next request downloads again, and only the genuine archive stays.
        origin.tampering = false;
        assertThat(fetchArchive(mirror)).isNull();
        assertThat(origin.archiveOpens).hasValue(2);
        try (ArchiveSource source = mirror.archive(ADDRESS, VERSION, PLATFORM).get(10, TimeUnit.SECONDS)) {
            assertThat(source).isInstanceOf(ArchiveSource.Cached.class);
        }
        assertThat(origin.archiveOpens).hasValue(2);
    }

    @Test
    void theOriginIsGivenItsOwnSpellingOfTheVersionForRenewingADownloadUrlEvenAfterARestart() throws Exception {
        ProviderMirrors.networkMirror(mirror()).versionIndex(ADDRESS).get(10, TimeUnit.SECONDS);
        ProviderMirror restarted = mirror();

        assertThat(fetchArchive(restarted)).isNull();
        assertThat(origin.spellingGiven).hasValue(Optional.of(ScriptedOrigin.SPELLING));
        assertThat(origin.versionCalls).hasValue(1);
    }

    @Test
    void theH1HashOfACommittedArchiveShowsInTheReleaseItsMirrorServes() throws Exception {
        ProviderMirror mirror = mirror();
        assertThat(mirror.release(ADDRESS, VERSION).get(10, TimeUnit.SECONDS).h1())
                .isEmpty();

        assertThat(fetchArchive(mirror)).isNull();
        assertThat(mirror.awaitBackgroundWork(Duration.ofSeconds(10))).isTrue();

        ServedRelease release = mirror.release(ADDRESS, VERSION).get(10, TimeUnit.SECONDS);
        assertThat(release.platforms()).containsExactly(PLATFORM);
        assertThat(release.h1()).containsKey(PLATFORM);
        assertThat(text(ProviderMirrors.networkMirror(mirror)
                        .versionDocument(ADDRESS, VERSION, "anonymous")
                        .get(10, TimeUnit.SECONDS)))
                .contains(release.h1().get(PLATFORM));
    }
}
