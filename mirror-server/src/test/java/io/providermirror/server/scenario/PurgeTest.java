package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.server.purge.PurgeReport;
import io.providermirror.server.purge.Retention;
import io.providermirror.testkit.FakeOrigin;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Purge and retention on a whole mirror: a purged version's files are gone and it is fetched again on its next
 * request, unless the policy refuses it; the command lists before it removes; the operator API refuses bad input with
 * 4xx JSON; retention removes only what was not requested within {@code unusedFor}, judged on an injected clock.
 */
final class PurgeTest {

    private static final String OPERATOR_TOKEN = "operator-secret-token";
    private static final ProviderAddress ADDRESS = new ProviderAddress(MirrorFixture.HOST, "acme", "purged");
    private static final ProviderVersion VERSION = new ProviderVersion("1.0.0");
    private static final String BASE = "/providers/example.test/acme/purged/";
    private static final String ARCHIVE = BASE + "terraform-provider-purged_1.0.0_linux_amd64.zip";

    @TempDir
    Path tmp;

    private FakeOrigin origin;
    private FakeOrigin.Release release;
    private MirrorFixture mirror;
    private final ch.qos.logback.classic.Level rootLevel = root().getLevel();

    private static ch.qos.logback.classic.Logger root() {
        return (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    @BeforeEach
    void start() {
        origin = FakeOrigin.start(tmp.resolve("origin"));
        release = origin.publish("acme", "purged", "1.0.0", "linux_amd64", "darwin_arm64");
    }

    @AfterEach
    void stop() {
        root().setLevel(rootLevel);
        if (mirror != null) {
            mirror.close();
        }
        origin.close();
    }

    private MirrorFixture.Builder builder() {
        return MirrorFixture.builder(tmp.resolve("cache"), origin)
                .set("operator.tokens", List.of(MirrorAuth.hash(OPERATOR_TOKEN)));
    }

    private HttpResponse<byte[]> delete(String path) throws Exception {
        return mirror.send(HttpRequest.newBuilder(mirror.url(path))
                .header("Authorization", "Bearer " + OPERATOR_TOKEN)
                .DELETE()
                .build());
    }

    private boolean cached(Platform platform) throws Exception {
        return mirror.mirror
                .core()
                .blobs()
                .find(CacheLayout.archive(ADDRESS, VERSION, platform))
                .isPresent();
    }

    private boolean releaseDocument() throws Exception {
        return mirror.mirror
                .core()
                .documents()
                .read(CacheLayout.release(ADDRESS, VERSION))
                .isPresent();
    }

    @Test
    void aVersionPurgedThroughTheApiIsGoneAndFetchedAgainOnItsNextRequest() throws Exception {
        mirror = builder().start();
        for (int i = 0; i < 3; i++) {
            // Fetched, then read from its file, then from memory (a small archive the store holds).
            assertThat(mirror.get(ARCHIVE).statusCode()).isEqualTo(200);
        }
        assertThat(cached(Platform.parse("linux_amd64"))).isTrue();
        assertThat(releaseDocument()).isTrue();

        HttpResponse<byte[]> purged = delete("/api/v1/providers/example.test/acme/purged/1.0.0");
        String answer = new String(purged.body(), StandardCharsets.UTF_8);
        assertThat(purged.statusCode()).as(answer).isEqualTo(200);
        assertThat(answer).contains("release.json").contains("terraform-provider-purged_1.0.0_linux_amd64.zip");
        assertThat(cached(Platform.parse("linux_amd64"))).isFalse();
        assertThat(releaseDocument()).isFalse();
        mirror.awaitDecision("cache.purged", "example.test/acme/purged 1.0.0");

        HttpResponse<byte[]> again = mirror.get(ARCHIVE);
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.body()).isEqualTo(release.archives().get("linux_amd64"));
        assertThat(origin.archiveDownloads(release, "linux_amd64"))
                .as("fetched from the origin again")
                .isEqualTo(2);
        assertThat(releaseDocument()).isTrue();

        HttpResponse<byte[]> nothing = delete("/api/v1/providers/example.test/acme/other/1.0.0");
        assertThat(nothing.statusCode()).isEqualTo(404);
        assertThat(MirrorFixture.error(nothing)).contains("nothing of");
    }

    @Test
    void aPurgedVersionsArchiveRefusedAMomentAgoIsFetchedAgainNotRefusedFromMemory() throws Exception {
        FakeOrigin.Release tampered =
                origin.publish("acme", "tampered", "1.0.0", FakeOrigin.Tamper.ARCHIVE_BYTES, 1000, "linux_amd64");
        mirror = builder().set("upstream.verificationFailureTtl", "5m").start();
        String path = mirror.providerPath("acme", "tampered") + "terraform-provider-tampered_1.0.0_linux_amd64.zip";
        try {
            assertThat(mirror.get(path).statusCode()).isNotEqualTo(200);
        } catch (java.io.IOException cutShort) {
            // the archive's sha256 is checked at its end: the response may have started and is cut short
        }
        int fetched = origin.archiveDownloads(tampered, "linux_amd64");
        assertThat(mirror.get(path).statusCode()).isEqualTo(502);
        assertThat(origin.archiveDownloads(tampered, "linux_amd64"))
                .as("refused again from memory (upstream.verificationFailureTtl)")
                .isEqualTo(fetched);
        FakeOrigin.Release mended = origin.publish("acme", "tampered", "1.0.0", "linux_amd64");

        HttpResponse<byte[]> purged = delete("/api/v1/providers/example.test/acme/tampered/1.0.0");
        assertThat(purged.statusCode())
                .as(new String(purged.body(), StandardCharsets.UTF_8))
                .isEqualTo(200);

        HttpResponse<byte[]> again = mirror.get(path);
        assertThat(again.statusCode())
                .as(
                        "the purge forgot the refusal of an archive that was never committed (the answer: %s)",
                        new String(again.body(), StandardCharsets.UTF_8))
                .isEqualTo(200);
        assertThat(again.body()).isEqualTo(mended.archives().get("linux_amd64"));
    }

    @Test
    void badPurgeRequestsAreRefusedWithJsonErrors() throws Exception {
        mirror = builder().start();
        for (String path : List.of(
                "/api/v1/providers/example.test/acme/purged/1.0",
                "/api/v1/providers/Example.test/acme/purged",
                "/api/v1/providers/example.test/acme/purged?platform=linux_amd64",
                "/api/v1/providers/example.test/acme/purged/1.0.0?platform=linux",
                "/api/v1/providers/example.test/acme/purged/1.0.0?other=x",
                "/api/v1/modules/example.test/corp/a/aws/v1")) {
            HttpResponse<byte[]> refused = delete(path);
            assertThat(refused.statusCode()).as(path).isEqualTo(400);
            assertThat(MirrorFixture.error(refused)).as(path).isNotBlank();
        }
        HttpResponse<byte[]> post =
                mirror.send(HttpRequest.newBuilder(mirror.url("/api/v1/providers/example.test/acme/purged/1.0.0"))
                        .header("Authorization", "Bearer " + OPERATOR_TOKEN)
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build());
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).contains("DELETE");
    }

    @Test
    void theCommandListsThenPurgesOnePlatformAndADeniedVersionIsNotFetchedAgain() throws Exception {
        MirrorFixture.Builder builder = builder();
        mirror = builder.start();
        assertThat(mirror.get(ARCHIVE).statusCode()).isEqualTo(200);
        assertThat(mirror.get(BASE + "terraform-provider-purged_1.0.0_darwin_arm64.zip")
                        .statusCode())
                .isEqualTo(200);
        mirror.close();
        mirror = null;
        Path config = Files.writeString(tmp.resolve("mirror.yaml"), builder.yaml());

        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int exit = purge(
                output,
                "provider",
                "--config",
                config.toString(),
                "--dry-run",
                ADDRESS.toString(),
                "1.0.0",
                "--platform",
                "linux_amd64");
        String printed = output.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(printed).isZero();
        assertThat(printed)
                .contains("would remove")
                .contains("_linux_amd64.zip")
                .doesNotContain("darwin");

        output.reset();
        exit = purge(
                output,
                "provider",
                "--config",
                config.toString(),
                ADDRESS.toString(),
                "1.0.0",
                "--platform",
                "linux_amd64");
        printed = output.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(printed).isZero();
        assertThat(printed).contains("removed 1 files");

        mirror = builder.set("policy.deny", List.of(Map.of("provider", "example.test/acme/purged")))
                .start();
        assertThat(cached(Platform.parse("linux_amd64"))).isFalse();
        assertThat(cached(Platform.parse("darwin_arm64")))
                .as("the other platform stays")
                .isTrue();
        mirror.awaitDecision("cache.purged", "(linux_amd64)");
        HttpResponse<byte[]> denied = mirror.get(ARCHIVE);
        assertThat(denied.statusCode()).as("a denied provider is not found").isEqualTo(404);
        assertThat(MirrorFixture.error(denied)).contains("policy.deny[0]");
        assertThat(origin.archiveDownloads(release, "linux_amd64"))
                .as("a denied version is not fetched again")
                .isEqualTo(1);
    }

    @Test
    void aModuleVersionPurgedThroughTheApiLosesItsPinAndTheNextFetchPinsWhatTheSourceHolds() throws Exception {
        io.providermirror.testkit.GitHttpServer git =
                io.providermirror.testkit.GitHttpServer.start(tmp.resolve("git"), origin.certificates());
        try {
            io.providermirror.testkit.GitRepository repository = git.createRepository("net");
            Map<String, String> first = Map.of("main.tf", "output \"v\" {\n  value = \"first\"\n}\n");
            Map<String, String> second = Map.of("main.tf", "output \"v\" {\n  value = \"second\"\n}\n");
            repository.tag("v1.0.0", repository.commit(first, "first"), true);
            io.providermirror.testkit.FakeModuleRegistry.of(origin)
                    .publish("corp", "gitnet", "aws", "1.0.0", "git::" + repository.url() + "?ref=v1.0.0");
            mirror = builder()
                    .set(
                            "upstream.hosts." + MirrorFixture.HOST.replace(".", "\\.") + ".downloadHosts",
                            List.of(git.url("x").getAuthority()))
                    .start();
            String download = "/registry/" + MirrorFixture.HOST + "/modules.v1/corp/gitnet/aws/1.0.0/download";
            String archive = "/registry/" + MirrorFixture.HOST + "/modules.v1/corp/gitnet/aws/1.0.0/module.tar.gz";
            assertThat(mirror.get(download).statusCode()).isEqualTo(204);
            assertThat(mirror.get(archive).statusCode()).isEqualTo(200);
            var address = new io.providermirror.model.ModuleAddress(MirrorFixture.HOST, "corp", "gitnet", "aws");
            String pinned = mirror.mirror
                    .core()
                    .modules()
                    .pin(address, VERSION)
                    .orElseThrow()
                    .commitId();

            repository.moveTag("v1.0.0", repository.commit(second, "second"));
            HttpResponse<byte[]> purged = delete("/api/v1/modules/example.test/corp/gitnet/aws/1.0.0");
            String answer = new String(purged.body(), StandardCharsets.UTF_8);
            assertThat(purged.statusCode()).as(answer).isEqualTo(200);
            assertThat(answer).contains("pin.json").contains("module.tar.gz");
            assertThat(mirror.mirror.core().modules().pin(address, VERSION)).isEmpty();
            mirror.awaitDecision("module.pinReleased", pinned);
            mirror.awaitDecision("cache.purged", "module example.test/corp/gitnet/aws 1.0.0");

            assertThat(mirror.get(download).statusCode()).isEqualTo(204);
            assertThat(mirror.get(archive).statusCode()).isEqualTo(200);
            assertThat(mirror.mirror
                            .core()
                            .modules()
                            .pin(address, VERSION)
                            .orElseThrow()
                            .commitId())
                    .as("pinned anew at what the source holds now")
                    .isEqualTo(repository.resolve("v1.0.0"))
                    .isNotEqualTo(pinned);
        } finally {
            git.close();
        }
    }

    @Test
    void aPurgedModuleVersionsNextDownloadAnswersWhatTheOriginPublishesNowNotThePinHeldInMemory() throws Exception {
        io.providermirror.testkit.FakeModuleRegistry registry = io.providermirror.testkit.FakeModuleRegistry.of(origin);
        Map<String, String> first = Map.of("main.tf", "output \"v\" {\n  value = \"first\"\n}\n");
        Map<String, String> second = Map.of("modules/inner/main.tf", "output \"v\" {\n  value = \"second\"\n}\n");
        registry.serveArchive("/archives/first.tar.gz", io.providermirror.testkit.ModuleArchives.tarGz(first));
        registry.publish("corp", "net", "aws", "1.0.0", "/archives/first.tar.gz");
        mirror = builder().start();
        String download = "/registry/" + MirrorFixture.HOST + "/modules.v1/corp/net/aws/1.0.0/download";
        String base = "/registry/" + MirrorFixture.HOST + "/modules.v1/corp/net/aws/1.0.0/";
        assertThat(mirror.get(download).statusCode()).isEqualTo(204);
        assertThat(mirror.get(base + "module.tar.gz").statusCode()).isEqualTo(200);
        HttpResponse<byte[]> pinned = mirror.get(download);
        assertThat(pinned.headers().firstValue("X-Cache"))
                .as("answered from the pin")
                .hasValue("HIT");
        assertThat(pinned.headers().firstValue("X-Terraform-Get").orElseThrow())
                .endsWith("/module.tar.gz?archive=tar.gz");

        registry.serveArchive("/archives/second.zip", io.providermirror.testkit.ModuleArchives.zip(second));
        registry.publish("corp", "net", "aws", "1.0.0", "/archives/second.zip//modules/inner");
        HttpResponse<byte[]> purged = delete("/api/v1/modules/example.test/corp/net/aws/1.0.0");
        assertThat(purged.statusCode())
                .as(new String(purged.body(), StandardCharsets.UTF_8))
                .isEqualTo(200);

        HttpResponse<byte[]> fresh = mirror.get(download);
        assertThat(fresh.statusCode()).isEqualTo(204);
        assertThat(fresh.headers().firstValue("X-Cache"))
                .as("the purged pin's answer is not served from memory")
                .hasValue("MISS");
        assertThat(fresh.headers().firstValue("X-Terraform-Get").orElseThrow())
                .as("the origin's new source: another archive type and a subdirectory")
                .endsWith("/module.zip//modules/inner?archive=zip");
        HttpResponse<byte[]> archive = mirror.get(base + "module.zip");
        assertThat(archive.statusCode()).isEqualTo(200);
        assertThat(archive.body()).isEqualTo(io.providermirror.testkit.ModuleArchives.zip(second));
        assertThat(mirror.get(download).headers().firstValue("X-Terraform-Get").orElseThrow())
                .as("pinned anew at what the origin publishes now")
                .endsWith("/module.zip//modules/inner?archive=zip");
    }

    private static int purge(ByteArrayOutputStream output, String what, String... args) {
        PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);
        Object command = what.equals("provider")
                ? new io.providermirror.server.cli.PurgeCommand.Provider(out, Map.of())
                : new io.providermirror.server.cli.PurgeCommand.Module(out, Map.of());
        return new picocli.CommandLine(command).execute(args);
    }

    @Test
    void aRunningMirrorAppliesRetentionEveryInterval() throws Exception {
        java.util.concurrent.atomic.AtomicReference<Duration> ahead =
                new java.util.concurrent.atomic.AtomicReference<>(Duration.ZERO);
        Clock moving = new Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return java.time.ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public java.time.Instant instant() {
                return java.time.Instant.now().plus(ahead.get());
            }
        };
        mirror = builder()
                .set("cache.retention.unusedFor", "1d")
                .set("cache.retention.interval", "200ms")
                .clock(moving)
                .start();
        assertThat(mirror.get(ARCHIVE).statusCode()).isEqualTo(200);
        assertThat(cached(Platform.parse("linux_amd64"))).isTrue();
        ahead.set(Duration.ofDays(2));
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> !cached(Platform.parse("linux_amd64")));
        assertThat(releaseDocument()).as("the verified release stays").isTrue();
    }

    @Test
    void retentionRemovesOnlyWhatWasNotRequestedWithinUnusedFor() throws Exception {
        mirror = builder().start();
        assertThat(mirror.get(ARCHIVE).statusCode()).isEqualTo(200);
        var core = mirror.mirror.core();
        Clock now = Clock.systemUTC();
        Clock later = Clock.offset(now, Duration.ofDays(31));

        assertThat(new Retention(core.blobs(), core.purge(), Duration.ofDays(30), now)
                        .run(false)
                        .empty())
                .as("requested just now")
                .isTrue();

        PurgeReport dry = new Retention(core.blobs(), core.purge(), Duration.ofDays(30), later).run(true);
        assertThat(dry.files())
                .containsExactly(CacheLayout.archive(ADDRESS, VERSION, Platform.parse("linux_amd64"))
                        .toString());
        assertThat(dry.archiveBytes()).isEqualTo(release.archives().get("linux_amd64").length);
        assertThat(cached(Platform.parse("linux_amd64")))
                .as("a dry run removes nothing")
                .isTrue();

        PurgeReport removed = new Retention(core.blobs(), core.purge(), Duration.ofDays(30), later).run(false);
        assertThat(removed.files()).isEqualTo(dry.files());
        assertThat(cached(Platform.parse("linux_amd64"))).isFalse();
        assertThat(releaseDocument()).as("the verified release stays").isTrue();
        mirror.awaitDecision("cache.purged", "cache.retention.unusedFor");
        assertThat(mirror.get(ARCHIVE).statusCode())
                .as("fetched again on demand")
                .isEqualTo(200);
    }
}
