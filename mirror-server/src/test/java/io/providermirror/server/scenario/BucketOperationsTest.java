package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.server.app.MirrorApplication;
import io.providermirror.server.cli.ExportCommand;
import io.providermirror.server.cli.ImportCommand;
import io.providermirror.server.cli.WarmCommand;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.PrometheusScrape;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The operator's tools with a bucket as the cache of record (S3Proxy on loopback): {@code warm} through a running
 * mirror and into a cache directory configured with {@code cache.s3}, {@code export} from a bucket and
 * {@code import} into another, {@code --verify-cache} reading every archive in the bucket, {@code cache.maxSize}
 * evicting the least recently used archives from the bucket, and the status page and metrics showing what the
 * bucket holds, other instances' commits included.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class BucketOperationsTest {

    @RegisterExtension
    static final MirrorBucket bucket = MirrorBucket.named("operations");

    @TempDir
    Path tmp;

    private static MirrorFixture.Builder onBucket(Path cache, FakeOrigin origin, String prefix) {
        return bucket.mirror(cache, origin, prefix).withManagement();
    }

    private Path configFile(String name, MirrorFixture.Builder builder) throws Exception {
        return Files.writeString(tmp.resolve(name + ".yaml"), builder.yaml());
    }

    private static String archivePath(String type) {
        return "/providers/example.test/acme/" + type + "/terraform-provider-" + type + "_1.0.0_linux_amd64.zip";
    }

    /** The file S3Proxy's filesystem backend keeps the archive's object in. */
    private Path objectFile(String prefix, String type) {
        return bucket.server()
                .objectFile(
                        bucket.name(),
                        prefix + "blobs/example.test/acme/" + type + "/1.0.0/terraform-provider-" + type
                                + "_1.0.0_linux_amd64.zip");
    }

    /** Runs a command as the launcher would; the root log level it sets for people is put back for later tests. */
    private static int run(Object command, String... args) {
        ch.qos.logback.classic.Logger root =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ch.qos.logback.classic.Level level = root.getLevel();
        try {
            return new CommandLine(command).execute(args);
        } finally {
            root.setLevel(level);
        }
    }

    private static PrintStream into(ByteArrayOutputStream output) {
        return new PrintStream(output, true, StandardCharsets.UTF_8);
    }

    private static PrometheusScrape scrape(MirrorFixture mirror) throws Exception {
        return PrometheusScrape.parse(mirror.management("/metrics").body());
    }

    @Test
    void warmThroughARunningMirrorAndIntoADirectoryOnTheBucketFillTheBucketForTheFleet() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-w"))) {
            FakeOrigin.Release through = origin.publish("acme", "wa", "1.0.0", "linux_amd64");
            FakeOrigin.Release direct = origin.publish("acme", "wb", "1.0.0", "linux_amd64");
            try (MirrorFixture mirror =
                    onBucket(tmp.resolve("w-running"), origin, "w/").start()) {
                ByteArrayOutputStream output = new ByteArrayOutputStream();
                int exit = run(
                        new WarmCommand(into(output), Map.of(), UnaryOperator.identity()),
                        "--mirror",
                        mirror.url("/providers/").toString(),
                        "--ca",
                        mirror.mirror.generatedCaFile().orElseThrow().toString(),
                        "--platform",
                        "linux_amd64",
                        "example.test/acme/wa");
                assertThat(exit).as(output.toString(StandardCharsets.UTF_8)).isZero();
            }
            // No mirror runs on this directory: warm opens the bucket itself.
            ByteArrayOutputStream output = new ByteArrayOutputStream();
            int exit = run(
                    new WarmCommand(into(output), Map.of(), UnaryOperator.identity()),
                    "--config",
                    configFile("w-direct", onBucket(tmp.resolve("w-direct"), origin, "w/"))
                            .toString(),
                    "--platform",
                    "linux_amd64",
                    "example.test/acme/wb");
            assertThat(exit).as(output.toString(StandardCharsets.UTF_8)).isZero();
            assertThat(output.toString(StandardCharsets.UTF_8)).contains("warm: 1 fetched");
            assertThat(objectFile("w/", "wa")).exists();
            assertThat(objectFile("w/", "wb")).exists();

            // With redirects on, an archive committed in the bucket is found there (a redirect), not fetched again.
            ByteArrayOutputStream again = new ByteArrayOutputStream();
            int exitAgain = run(
                    new WarmCommand(into(again), Map.of(), UnaryOperator.identity()),
                    "--config",
                    configFile(
                                    "w-redirecting",
                                    onBucket(tmp.resolve("w-redirecting"), origin, "w/")
                                            .set("cache.s3.redirectArchives", true))
                            .toString(),
                    "--platform",
                    "linux_amd64",
                    "example.test/acme/wa",
                    "example.test/acme/wb");
            assertThat(exitAgain).as(again.toString(StandardCharsets.UTF_8)).isZero();
            assertThat(again.toString(StandardCharsets.UTF_8)).contains("warm: 0 fetched", "2 already cached");

            int originRequests = origin.requestsMatching(".*");
            try (MirrorFixture fresh =
                    onBucket(tmp.resolve("w-fresh"), origin, "w/").start()) {
                assertThat(fresh.get(archivePath("wa")).body())
                        .isEqualTo(through.archives().get("linux_amd64"));
                assertThat(fresh.get(archivePath("wb")).body())
                        .isEqualTo(direct.archives().get("linux_amd64"));
                assertThat(fresh.get("/providers/example.test/acme/wb/1.0.0.json")
                                .statusCode())
                        .isEqualTo(200);
            }
            assertThat(origin.requestsMatching(".*"))
                    .as("a fresh instance needs no origin")
                    .isEqualTo(originRequests);
        }
    }

    @Test
    void exportFromOneBucketAndImportIntoAnotherThatAnOfflineInstanceServes() throws Exception {
        Path bundle = tmp.resolve("providers.tar");
        FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-x"));
        try {
            FakeOrigin.Release release = origin.publish("acme", "carried", "1.0.0", "linux_amd64");
            try (MirrorFixture outside =
                    onBucket(tmp.resolve("x-outside"), origin, "x-out/").start()) {
                assertThat(outside.get(archivePath("carried")).statusCode()).isEqualTo(200);
            }
            // Exported on another host: a fresh directory, everything read from the bucket.
            ByteArrayOutputStream exported = new ByteArrayOutputStream();
            int exit = run(
                    new ExportCommand(into(exported), Map.of()),
                    "--config",
                    configFile("x-export", onBucket(tmp.resolve("x-export"), origin, "x-out/"))
                            .toString(),
                    "--output",
                    bundle.toString(),
                    "--platform",
                    "linux_amd64",
                    "example.test/acme/carried@1.0.0");
            assertThat(exit).as(exported.toString(StandardCharsets.UTF_8)).isZero();
            assertThat(origin.archiveDownloads(release, "linux_amd64"))
                    .as("exported from the bucket")
                    .isEqualTo(1);
            MirrorFixture.Builder inside =
                    onBucket(tmp.resolve("x-inside"), origin, "x-in/").set("upstream.offline", true);
            MirrorFixture.Builder anotherInside =
                    onBucket(tmp.resolve("x-inside-2"), origin, "x-in/").set("upstream.offline", true);
            origin.close();

            ByteArrayOutputStream imported = new ByteArrayOutputStream();
            int imports = run(
                    new ImportCommand(into(imported), Map.of()),
                    "--config",
                    configFile("x-import", inside).toString(),
                    bundle.toString());
            assertThat(imports).as(imported.toString(StandardCharsets.UTF_8)).isZero();
            assertThat(objectFile("x-in/", "carried")).exists();
            try (MirrorFixture offline = anotherInside.start()) {
                assertThat(offline.get("/providers/example.test/acme/carried/index.json")
                                .statusCode())
                        .isEqualTo(200);
                assertThat(offline.get("/providers/example.test/acme/carried/1.0.0.json")
                                .statusCode())
                        .isEqualTo(200);
                assertThat(offline.get(archivePath("carried")).body())
                        .isEqualTo(release.archives().get("linux_amd64"));
            }
        } finally {
            origin.close();
        }
    }

    @Test
    void verifyCacheReadsEveryArchiveInTheBucketAndRemovesThoseThatNoLongerMatch() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-v"))) {
            FakeOrigin.Release altered = origin.publish("acme", "altered", "1.0.0", "linux_amd64");
            FakeOrigin.Release intact = origin.publish("acme", "intact", "1.0.0", "linux_amd64");
            try (MirrorFixture first =
                    onBucket(tmp.resolve("v-first"), origin, "v/").start()) {
                assertThat(first.get(archivePath("altered")).statusCode()).isEqualTo(200);
                assertThat(first.get(archivePath("intact")).statusCode()).isEqualTo(200);
            }
            // One bit changed in the object on the store's disk; its recorded size and sha256 stay.
            byte[] bytes = Files.readAllBytes(objectFile("v/", "altered"));
            bytes[bytes.length / 2] ^= 0x01;
            Files.write(objectFile("v/", "altered"), bytes);

            MirrorFixture.Builder builder = onBucket(tmp.resolve("v-verify"), origin, "v/");
            try (MirrorApplication verified = MirrorApplication.start(builder.config(), Clock.systemUTC(), true)) {
                assertThat(verified.port()).isPositive();
                assertThat(objectFile("v/", "altered"))
                        .as("removed before anything was served")
                        .doesNotExist();
                assertThat(objectFile("v/", "intact")).exists();
            }
            try (MirrorFixture after = builder.start()) {
                assertThat(after.get(archivePath("altered")).body())
                        .isEqualTo(altered.archives().get("linux_amd64"));
                assertThat(after.get(archivePath("intact")).body())
                        .isEqualTo(intact.archives().get("linux_amd64"));
            }
            assertThat(origin.archiveDownloads(altered, "linux_amd64"))
                    .as("fetched again")
                    .isEqualTo(2);
            assertThat(origin.archiveDownloads(intact, "linux_amd64")).isEqualTo(1);
        }
    }

    @Test
    void maxSizeEvictsTheLeastRecentlyUsedArchivesFromTheBucket() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-m"));
                MirrorFixture mirror = onBucket(tmp.resolve("m"), origin, "m/")
                        .set("cache.maxSize", "250KB")
                        .start()) {
            for (String type : new String[] {"old", "used", "new"}) {
                FakeOrigin.Release release =
                        origin.publish("acme", type, "1.0.0", FakeOrigin.Tamper.NONE, 100_000, "linux_amd64");
                assertThat(release.archives().get("linux_amd64").length).isBetween(83_334, 125_000);
            }
            assertThat(mirror.get(archivePath("used")).statusCode()).isEqualTo(200);
            assertThat(mirror.get(archivePath("old")).statusCode()).isEqualTo(200);
            assertThat(mirror.get(archivePath("used")).statusCode())
                    .as("used again")
                    .isEqualTo(200);

            assertThat(mirror.get(archivePath("new")).statusCode()).isEqualTo(200);

            assertThat(objectFile("m/", "old")).as("least recently used").doesNotExist();
            assertThat(objectFile("m/", "used")).exists();
            assertThat(objectFile("m/", "new")).exists();
            PrometheusScrape metrics = scrape(mirror);
            assertThat(metrics.value("mirror_cache_evictions_total")).isEqualTo(1);
            assertThat(metrics.value("mirror_cache_archives")).isEqualTo(2);
            assertThat(metrics.value("mirror_cache_size_bytes")).isBetween(1.0, 250_000.0);
        }
    }

    @Test
    void theStatusPageAndMetricsShowWhatTheBucketHoldsIncludingAnotherInstancesCommits() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-s"));
                MirrorFixture watching =
                        onBucket(tmp.resolve("s-watching"), origin, "s/").start();
                MirrorFixture filling =
                        onBucket(tmp.resolve("s-filling"), origin, "s/").start()) {
            FakeOrigin.Release release = origin.publish("acme", "shown", "1.0.0", "linux_amd64");
            assertThat(filling.get(archivePath("shown")).statusCode()).isEqualTo(200);

            String page = new String(watching.get("/").body(), StandardCharsets.UTF_8);

            assertThat(page).contains("example.test/acme/shown");
            PrometheusScrape metrics = scrape(watching);
            assertThat(metrics.value("mirror_cache_archives"))
                    .as("after the page's listing")
                    .isEqualTo(1);
            assertThat(metrics.value("mirror_cache_size_bytes"))
                    .isEqualTo(release.archives().get("linux_amd64").length);
            assertThat(metrics.value("mirror_store_requests_seconds_count", "operation", "list", "outcome", "ok"))
                    .isPositive();
        }
    }
}
