package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.GitHttpServer;
import io.providermirror.testkit.GitRepository;
import io.providermirror.testkit.ModuleArchives;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Registry modules through the running mirror, against a module registry and a git server on loopback. */
final class ModuleMirrorTest {

    private static final String TOKEN = "module-test-token";
    private static final String WELL_KNOWN = "/.well-known/terraform.json";

    @TempDir
    Path tmp;

    private FakeOrigin origin;
    private FakeModuleRegistry registry;
    private GitHttpServer git;
    private MirrorFixture mirror;

    /** The commands set the root logger to WARN, as for people; other tests in this JVM expect it as it was. */
    private final ch.qos.logback.classic.Level rootLevel = root().getLevel();

    private static ch.qos.logback.classic.Logger root() {
        return (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    @BeforeEach
    void start() {
        origin = FakeOrigin.start(tmp.resolve("origin"));
        registry = FakeModuleRegistry.of(origin);
        git = GitHttpServer.start(tmp.resolve("git"), origin.certificates());
    }

    @AfterEach
    void stop() {
        root().setLevel(rootLevel);
        if (mirror != null) {
            mirror.close();
        }
        git.close();
        origin.close();
    }

    private MirrorFixture.Builder builder() {
        return MirrorFixture.builder(tmp.resolve("cache"), origin).set("cache.indexTtl", "15m");
    }

    private MirrorFixture.Builder builderAllowingGit() {
        return builder()
                .set(
                        "upstream.hosts." + MirrorFixture.HOST.replace(".", "\\.") + ".downloadHosts",
                        List.of(git.url("x").getAuthority()));
    }

    private static String path(String module, String rest) {
        return "/registry/" + MirrorFixture.HOST + "/modules.v1/" + module + "/" + rest;
    }

    private static Map<String, String> module(String text) {
        return Map.of("main.tf", "output \"v\" {\n  value = \"" + text + "\"\n}\n");
    }

    /** The archive the download answer points at, fetched as the CLI would (subdirectory and archive= taken off). */
    private HttpResponse<byte[]> followDownload(HttpResponse<byte[]> download) throws Exception {
        assertThat(download.statusCode()).as("the download answer").isEqualTo(204);
        String location = download.headers().firstValue("X-Terraform-Get").orElseThrow();
        String[] parts = location.split("\\?", 2);
        int subdirectory = parts[0].indexOf("//", "https://".length());
        String base = subdirectory < 0 ? parts[0] : parts[0].substring(0, subdirectory);
        String query = signedQuery(location);
        return mirror.get(URI.create(base).getRawPath() + (query.isEmpty() ? "" : "?" + query));
    }

    /** The query of a download answer without {@code archive=}: what go-getter sends. */
    private static String signedQuery(String location) {
        String[] parts = location.split("\\?", 2);
        return parts.length < 2 ? "" : parts[1].replaceFirst("archive=[^&]*&?", "");
    }

    @Test
    void versionsAndAnArchiveModuleAreServedFromTheMirrorWithItsSubdirectoryAndType() throws Exception {
        Map<String, String> files = new LinkedHashMap<>(module("net 1.2.0"));
        files.put("modules/inner/main.tf", "output \"v\" {\n  value = \"inner\"\n}\n");
        byte[] archive = ModuleArchives.tarGz(files);
        registry.serveArchive("/archives/net.tar.gz", archive);
        registry.publish("corp", "net", "aws", "1.2.0", "/archives/net.tar.gz//modules/inner");
        registry.publish("corp", "net", "aws", "1.1.0", "/archives/net.tar.gz");
        mirror = builder().start();

        HttpResponse<byte[]> versions = mirror.get(path("corp/net/aws", "versions"));
        assertThat(versions.statusCode()).isEqualTo(200);
        assertThat(new String(versions.body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"modules\":[{\"versions\":[{\"version\":\"1.2.0\"},{\"version\":\"1.1.0\"}]}]}");

        HttpResponse<byte[]> download = mirror.get(path("corp/net/aws", "1.2.0/download"));
        assertThat(download.statusCode()).isEqualTo(204);
        assertThat(download.headers().firstValue("X-Terraform-Get"))
                .contains(mirror.url(path("corp/net/aws", "1.2.0/module.tar.gz")) + "//modules/inner?archive=tar.gz");
        HttpResponse<byte[]> served = followDownload(download);
        assertThat(served.statusCode()).isEqualTo(200);
        assertThat(served.body()).isEqualTo(archive);

        // Again: from the pin and the cache, with no origin request.
        int before = registry.originRequests();
        assertThat(followDownload(mirror.get(path("corp/net/aws", "1.2.0/download")))
                        .body())
                .isEqualTo(archive);
        assertThat(registry.originRequests()).isEqualTo(before);
        assertThat(registry.archiveDownloads("/archives/net.tar.gz")).isEqualTo(1);
    }

    @Test
    void warmAnswersAreReadyAtOnceWithoutAnotherThread() throws Exception {
        byte[] archive = ModuleArchives.tarGz(module("warm"));
        registry.serveArchive("/archives/warm.tar.gz", archive);
        registry.publish("corp", "warm", "aws", "1.0.0", "/archives/warm.tar.gz//sub");
        mirror = builder().start();
        assertThat(followDownload(mirror.get(path("corp/warm/aws", "1.0.0/download")))
                        .body())
                .isEqualTo(archive);
        assertThat(mirror.get(path("corp/warm/aws", "versions")).statusCode()).isEqualTo(200);
        var modules = mirror.mirror.core().modules();
        ModuleAddress address = new ModuleAddress(MirrorFixture.HOST, "corp", "warm", "aws");
        ProviderVersion version = new ProviderVersion("1.0.0");
        modules.download(address, version).join();

        // What the event loop answers on its own thread (no thread hop, no file read): the download from the
        // pin's answer, the cached archive with one open, the versions answer as the bytes rendered before.
        var download = modules.download(address, version);
        var archiveSource = modules.archive(address, version, "tar.gz");
        var versions = modules.versions(address);
        var again = modules.versions(address);

        assertThat(download).isDone();
        assertThat(download.join().pinned()).isTrue();
        assertThat(download.join().subdirectory()).isEqualTo("sub");
        assertThat(archiveSource).isDone();
        archiveSource.join().close();
        assertThat(versions).isDone();
        assertThat(again.join()).isSameAs(versions.join());
        assertThat(mirror.get(path("corp/warm/aws", "1.0.0/download")).headers().firstValue("X-Terraform-Get"))
                .contains(mirror.url(path("corp/warm/aws", "1.0.0/module.tar.gz")) + "//sub?archive=tar.gz");
    }

    @Test
    void aRefreshedVersionListIsRenderedAgain() throws Exception {
        registry.publish("corp", "grow", "aws", "1.0.0", "/archives/grow.tar.gz");
        mirror = builder().set("cache.indexTtl", "1ms").start();
        assertThat(new String(mirror.get(path("corp/grow/aws", "versions")).body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"modules\":[{\"versions\":[{\"version\":\"1.0.0\"}]}]}");

        registry.publish("corp", "grow", "aws", "1.1.0", "/archives/grow.tar.gz");

        // Stale at once (1 ms): each request is answered from the list held and refreshes it in the background.
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(new String(
                                mirror.get(path("corp/grow/aws", "versions")).body(), StandardCharsets.UTF_8))
                        .isEqualTo("{\"modules\":[{\"versions\":[{\"version\":\"1.0.0\"},{\"version\":\"1.1.0\"}]}]}"));
    }

    @Test
    void anArchiveWhoseEntriesClimbOutOfItsDirectoryIsRefusedAndNotKept() throws Exception {
        registry.serveArchive("/archives/evil.tar.gz", ModuleArchives.tarGz(Map.of("../../etc/cron.d/x", "boom")));
        registry.publish("corp", "evil", "aws", "1.0.0", "/archives/evil.tar.gz");
        mirror = builder().start();

        HttpResponse<byte[]> archive = followDownload(mirror.get(path("corp/evil/aws", "1.0.0/download")));

        assertThat(archive.statusCode()).isEqualTo(502);
        assertThat(MirrorFixture.error(archive)).contains("corp/evil/aws").contains("climbs out");
        assertThat(mirror.get("/metrics").body())
                .asString(StandardCharsets.UTF_8)
                .contains("reason=\"module_archive\"");
    }

    @Test
    void anArchiveThatUnpacksBeyondTheLimitIsRefused() throws Exception {
        registry.serveArchive("/archives/big.zip", ModuleArchives.zip(Map.of("main.tf", "x".repeat(300_000))));
        registry.publish("corp", "big", "aws", "1.0.0", "/archives/big.zip");
        mirror = builder().set("modules.maxUnpackedSize", "100KB").start();

        HttpResponse<byte[]> archive = followDownload(mirror.get(path("corp/big/aws", "1.0.0/download")));

        assertThat(archive.statusCode()).isEqualTo(502);
        assertThat(MirrorFixture.error(archive)).contains("unpacked");
    }

    @Test
    void aGitTreeBeyondTheEntryLimitIsRefusedAndCountedWithNothingLeftInTheWorkDirectory() throws Exception {
        GitRepository repository = git.createRepository("wide");
        Map<String, String> files = new java.util.TreeMap<>();
        for (int i = 0; i < 40; i++) {
            files.put("f" + i + ".tf", "# " + i + "\n");
        }
        repository.tag("v1.0.0", repository.commit(files, "wide"), false);
        registry.publish("corp", "wide", "aws", "1.0.0", "git::" + repository.url() + "?ref=v1.0.0");
        mirror = builderAllowingGit().set("modules.maxArchiveEntries", 20).start();

        HttpResponse<byte[]> archive = followDownload(mirror.get(path("corp/wide/aws", "1.0.0/download")));

        assertThat(archive.statusCode()).isEqualTo(502);
        assertThat(MirrorFixture.error(archive))
                .contains("corp/wide/aws")
                .contains("git tree")
                .contains("is refused: the tree holds more than 20 entries");
        assertThat(mirror.get("/metrics").body())
                .asString(StandardCharsets.UTF_8)
                .contains("reason=\"module_archive\"");
        assertThat(tmp.resolve("cache/git-work")).isEmptyDirectory();
    }

    @Test
    void aGitModuleIsPackedOnceAndAMovedTagIsRefusedUntilAnOperatorAcceptsIt() throws Exception {
        GitRepository repository = git.createRepository("net");
        repository.tag("v1.0.0", repository.commit(module("first"), "first"), true);
        registry.publish("corp", "gitnet", "aws", "1.0.0", "git::" + repository.url() + "?ref=v1.0.0");
        mirror = builderAllowingGit().start();

        HttpResponse<byte[]> first = followDownload(mirror.get(path("corp/gitnet/aws", "1.0.0/download")));
        assertThat(first.statusCode()).isEqualTo(200);

        repository.moveTag("v1.0.0", repository.commit(module("second"), "second"));
        ModuleAddress address = new ModuleAddress(MirrorFixture.HOST, "corp", "gitnet", "aws");
        ProviderVersion version = new ProviderVersion("1.0.0");
        mirror.mirror
                .core()
                .blobs()
                .remove(io.providermirror.server.core.CacheLayout.moduleArchive(address, version, "tar.gz"));

        HttpResponse<byte[]> moved = followDownload(mirror.get(path("corp/gitnet/aws", "1.0.0/download")));
        assertThat(moved.statusCode()).isEqualTo(502);
        assertThat(MirrorFixture.error(moved))
                .contains("pinned commit ")
                .contains("modules accept " + address + " 1.0.0");
        assertThat(mirror.get("/metrics").body())
                .asString(StandardCharsets.UTF_8)
                .containsPattern(
                        "mirror_verification_failures_total\\{host=\"example.test\",reason=\"module_pin\"} 1.0");

        assertThat(mirror.get(path("corp/gitnet/aws", "1.0.0/download"))
                        .headers()
                        .firstValue("X-Cache"))
                .as("answered from the pin")
                .contains("HIT");

        mirror.mirror.core().modules().acceptNewContent(address, version);
        HttpResponse<byte[]> acceptedDownload = mirror.get(path("corp/gitnet/aws", "1.0.0/download"));
        assertThat(acceptedDownload.headers().firstValue("X-Cache"))
                .as("a released pin no longer answers the download")
                .contains("MISS");
        HttpResponse<byte[]> accepted = followDownload(acceptedDownload);
        assertThat(accepted.statusCode()).isEqualTo(200);
        assertThat(accepted.body()).isNotEqualTo(first.body());
        assertThat(mirror.mirror
                        .core()
                        .modules()
                        .pin(address, version)
                        .orElseThrow()
                        .commitId())
                .isEqualTo(repository.resolve("v1.0.0"));
    }

    @Test
    void aGitServerOnAnInternalAddressThatIsNotConfiguredIsNeverContacted() throws Exception {
        GitRepository repository = git.createRepository("internal");
        repository.tag("v1.0.0", repository.commit(module("internal"), "c"), false);
        registry.publish("corp", "internal", "aws", "1.0.0", "git::" + repository.url() + "?ref=v1.0.0");
        mirror = builder().start();

        HttpResponse<byte[]> archive = followDownload(mirror.get(path("corp/internal/aws", "1.0.0/download")));

        assertThat(archive.statusCode())
                .isGreaterThanOrEqualTo(400)
                .isLessThan(600)
                .isNotEqualTo(500);
        assertThat(MirrorFixture.error(archive)).contains("internal");
        assertThat(git.paths()).isEmpty();
    }

    @Test
    void withAccessControlTheRegistryCallsWantATokenAndTheArchiveURLIsSigned() throws Exception {
        registry.serveArchive("/archives/a.tar.gz", ModuleArchives.tarGz(module("a")));
        registry.publish("corp", "a", "aws", "1.0.0", "/archives/a.tar.gz");
        mirror = builder().set("auth.tokens", List.of(MirrorAuth.hash(TOKEN))).start();

        assertThat(mirror.get(path("corp/a/aws", "versions")).statusCode()).isEqualTo(401);
        assertThat(mirror.get(path("corp/a/aws", "1.0.0/download")).statusCode())
                .isEqualTo(401);
        HttpResponse<byte[]> download =
                mirror.send(HttpRequest.newBuilder(mirror.url(path("corp/a/aws", "1.0.0/download")))
                        .header("Authorization", "Bearer " + TOKEN)
                        .build());
        assertThat(download.statusCode()).isEqualTo(204);
        assertThat(download.headers().firstValue("X-Terraform-Get").orElseThrow())
                .contains("?archive=tar.gz&expires=")
                .contains("&signature=");

        assertThat(mirror.get(path("corp/a/aws", "1.0.0/module.tar.gz")).statusCode())
                .isEqualTo(403);
        assertThat(followDownload(download).statusCode()).isEqualTo(200);
        // A signature is for one module version: it opens no other.
        String query =
                signedQuery(download.headers().firstValue("X-Terraform-Get").orElseThrow());
        assertThat(mirror.get(path("corp/b/aws", "1.0.0/module.tar.gz") + "?" + query)
                        .statusCode())
                .isEqualTo(403);
    }

    @Test
    void thePolicyRefusesDeniedModulesWithA404NamingTheRuleAsForProviders() throws Exception {
        registry.serveArchive("/archives/a.tar.gz", ModuleArchives.tarGz(module("a")));
        registry.publish("corp", "a", "aws", "1.0.0", "/archives/a.tar.gz");
        registry.publish("corp", "a", "aws", "2.0.0", "/archives/a.tar.gz");
        mirror = builder()
                .set("policy.modules.deny", List.of(Map.of("module", "example.test/corp/a/*", "versions", ">= 2.0")))
                .start();

        HttpResponse<byte[]> versions = mirror.get(path("corp/a/aws", "versions"));
        assertThat(new String(versions.body(), StandardCharsets.UTF_8))
                .contains("1.0.0")
                .doesNotContain("2.0.0");
        HttpResponse<byte[]> denied = mirror.get(path("corp/a/aws", "2.0.0/download"));
        assertThat(denied.statusCode()).isEqualTo(404);
        assertThat(MirrorFixture.error(denied)).contains("policy.modules.deny[0]");
    }

    @Test
    void anUnsupportedSourceIsAClearErrorUnlessPassedThrough() throws Exception {
        registry.publish("corp", "ssh", "aws", "1.0.0", "git::ssh://git@github.com/corp/ssh.git?ref=v1.0.0");
        mirror = builder().start();
        HttpResponse<byte[]> refused = mirror.get(path("corp/ssh/aws", "1.0.0/download"));
        assertThat(refused.statusCode()).isEqualTo(502);
        assertThat(MirrorFixture.error(refused)).contains("corp/ssh/aws").contains("passthroughUnsupported");
        mirror.close();

        mirror = builder().set("modules.passthroughUnsupported", true).start();
        HttpResponse<byte[]> passed = mirror.get(path("corp/ssh/aws", "1.0.0/download"));
        assertThat(passed.statusCode()).isEqualTo(204);
        assertThat(passed.headers().firstValue("X-Terraform-Get"))
                .contains("git::ssh://git@github.com/corp/ssh.git?ref=v1.0.0");
    }

    @Test
    void withTheOriginDownTheCachedVersionsAndArchivesAreStillServed() throws Exception {
        registry.serveArchive("/archives/a.tar.gz", ModuleArchives.tarGz(module("a")));
        registry.publish("corp", "a", "aws", "1.0.0", "/archives/a.tar.gz");
        mirror = builder().set("cache.indexTtl", "1ms").start();
        assertThat(followDownload(mirror.get(path("corp/a/aws", "1.0.0/download")))
                        .statusCode())
                .isEqualTo(200);
        assertThat(mirror.get(path("corp/a/aws", "versions")).statusCode()).isEqualTo(200);

        origin.close();
        for (int i = 0; i < 3; i++) {
            HttpResponse<byte[]> versions = mirror.get(path("corp/a/aws", "versions"));
            assertThat(versions.statusCode()).isEqualTo(200);
            assertThat(new String(versions.body(), StandardCharsets.UTF_8)).contains("1.0.0");
        }
        assertThat(followDownload(mirror.get(path("corp/a/aws", "1.0.0/download")))
                        .statusCode())
                .isEqualTo(200);
        HttpResponse<byte[]> unknown = mirror.get(path("corp/b/aws", "versions"));
        assertThat(unknown.statusCode()).isGreaterThanOrEqualTo(502);
        assertThat(MirrorFixture.error(unknown)).contains("corp/b/aws");
    }

    /** A host's providers and modules are found by one discovery document. */
    @Test
    void providersAndModulesOfAHostShareOneDiscoveryRequest() throws Exception {
        origin.publish("acme", "null", "1.0.0", "linux_amd64");
        registry.serveArchive("/archives/net.tar.gz", ModuleArchives.tarGz(module("net")));
        registry.publish("corp", "net", "aws", "1.0.0", "/archives/net.tar.gz");
        mirror = builder().start();

        assertThat(mirror.get(mirror.providerPath("acme", "null") + "index.json")
                        .statusCode())
                .isEqualTo(200);
        assertThat(mirror.get(path("corp/net/aws", "versions")).statusCode()).isEqualTo(200);
        assertThat(mirror.get(path("corp/net/aws", "1.0.0/download")).statusCode())
                .isEqualTo(204);

        assertThat(origin.requestsMatching(WELL_KNOWN)).isEqualTo(1);
    }

    /** The module registry a first discovery found is remembered across a restart for when discovery fails. */
    @Test
    void aModuleVersionListIsAnsweredWhileDiscoveryFailsAfterAFirstSuccessfulOne() throws Exception {
        registry.publish("corp", "net", "aws", "1.0.0", "/archives/net.tar.gz");
        registry.publish("corp", "dns", "aws", "2.0.0", "/archives/net.tar.gz");
        mirror = builder().start();
        assertThat(mirror.get(path("corp/net/aws", "versions")).statusCode()).isEqualTo(200);
        mirror.close();
        mirror = null;

        // The origin's discovery endpoint breaks; its module registry still answers.
        origin.wireMock()
                .stubFor(get(urlEqualTo(WELL_KNOWN))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withHeader("Content-Type", "text/html")
                                .withBody("<h1>maintenance</h1>")));
        mirror = builder().start();

        HttpResponse<byte[]> versions = mirror.get(path("corp/dns/aws", "versions"));
        assertThat(versions.statusCode())
                .as(new String(versions.body(), StandardCharsets.UTF_8))
                .isEqualTo(200);
        assertThat(new String(versions.body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"modules\":[{\"versions\":[{\"version\":\"2.0.0\"}]}]}");
        assertThat(origin.requestsMatching(WELL_KNOWN)).isEqualTo(2);
    }

    @Test
    void theAcceptCommandReleasesAPinOnAStoppedMirrorsCacheAndSaysWhatWasPinned() throws Exception {
        registry.serveArchive("/archives/a.tar.gz", ModuleArchives.tarGz(module("a")));
        registry.publish("corp", "a", "aws", "1.0.0", "/archives/a.tar.gz");
        MirrorFixture.Builder builder = builder();
        mirror = builder.start();
        assertThat(followDownload(mirror.get(path("corp/a/aws", "1.0.0/download")))
                        .statusCode())
                .isEqualTo(200);
        mirror.close();
        mirror = null;
        Path config = java.nio.file.Files.writeString(tmp.resolve("mirror.yaml"), builder.yaml());

        java.io.ByteArrayOutputStream output = new java.io.ByteArrayOutputStream();
        int exit = new picocli.CommandLine(new io.providermirror.server.cli.ModulesCommand.Accept(
                        new java.io.PrintStream(output, true, StandardCharsets.UTF_8), Map.of()))
                .execute("--config", config.toString(), MirrorFixture.HOST + "/corp/a/aws", "1.0.0");
        assertThat(exit).as(output.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(output.toString(StandardCharsets.UTF_8)).contains("was pinned at sha256 ");

        java.io.ByteArrayOutputStream again = new java.io.ByteArrayOutputStream();
        int unknown = new picocli.CommandLine(new io.providermirror.server.cli.ModulesCommand.Accept(
                        new java.io.PrintStream(again, true, StandardCharsets.UTF_8), Map.of()))
                .execute("--config", config.toString(), MirrorFixture.HOST + "/corp/other/aws", "1.0.0");
        assertThat(unknown).isEqualTo(1);
        assertThat(again.toString(StandardCharsets.UTF_8)).contains("has no pin");

        mirror = builder.start();
        ModuleAddress address = new ModuleAddress(MirrorFixture.HOST, "corp", "a", "aws");
        assertThat(mirror.mirror
                        .core()
                        .modules()
                        .pin(address, new ProviderVersion("1.0.0"))
                        .orElseThrow()
                        .accepting())
                .isTrue();
    }

    private static int warm(java.io.ByteArrayOutputStream output, String... args) {
        return new picocli.CommandLine(new io.providermirror.server.cli.WarmCommand(
                        new java.io.PrintStream(output, true, StandardCharsets.UTF_8),
                        Map.of(),
                        java.util.function.UnaryOperator.identity()))
                .execute(args);
    }

    private Path configurationCalling(String... calls) throws Exception {
        Path directory = java.nio.file.Files.createDirectories(tmp.resolve("configuration"));
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < calls.length; i += 2) {
            text.append("module \"m")
                    .append(i)
                    .append("\" {\n  source  = \"")
                    .append(calls[i])
                    .append("\"\n  version = \"")
                    .append(calls[i + 1])
                    .append("\"\n}\n");
        }
        text.append("module \"local\" {\n  source = \"./local\"\n}\n");
        java.nio.file.Files.writeString(directory.resolve("main.tf"), text);
        return directory;
    }

    @Test
    void warmThroughARunningMirrorFetchesAndPinsTheNewestMatchingModuleVersionsAndAgainFindsThemCached()
            throws Exception {
        registry.serveArchive("/archives/a-1.tar.gz", ModuleArchives.tarGz(module("a 1")));
        registry.serveArchive("/archives/a-2.tar.gz", ModuleArchives.tarGz(module("a 2")));
        registry.publish("corp", "a", "aws", "1.1.0", "/archives/a-1.tar.gz");
        registry.publish("corp", "a", "aws", "2.0.0", "/archives/a-2.tar.gz");
        mirror = builder().start();
        Path directory = configurationCalling(MirrorFixture.HOST + "/corp/a/aws", "~> 1.0");
        String[] args = {
            "--mirror", mirror.url("/providers/").toString(),
            "--ca", mirror.mirror.generatedCaFile().orElseThrow().toString(),
            "--platform", "linux_amd64",
            "--dir", directory.toString()
        };

        java.io.ByteArrayOutputStream output = new java.io.ByteArrayOutputStream();
        assertThat(warm(output, args))
                .as(output.toString(StandardCharsets.UTF_8))
                .isZero();
        assertThat(output.toString(StandardCharsets.UTF_8))
                .contains("module " + MirrorFixture.HOST + "/corp/a/aws 1.1.0: done")
                .contains("warm: modules: 1 fetched, 0 already cached, 0 failed");
        assertThat(registry.archiveDownloads("/archives/a-1.tar.gz")).isEqualTo(1);
        assertThat(registry.archiveDownloads("/archives/a-2.tar.gz")).isZero();

        java.io.ByteArrayOutputStream again = new java.io.ByteArrayOutputStream();
        assertThat(warm(again, args)).as(again.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(again.toString(StandardCharsets.UTF_8)).contains("1.1.0: cached");
        assertThat(registry.archiveDownloads("/archives/a-1.tar.gz")).isEqualTo(1);
    }

    @Test
    void warmIntoACacheDirectoryLeavesModulesAStartedMirrorServesWithTheOriginGone() throws Exception {
        registry.serveArchive("/archives/a-1.tar.gz", ModuleArchives.tarGz(module("a 1")));
        registry.publish("corp", "a", "aws", "1.1.0", "/archives/a-1.tar.gz");
        MirrorFixture.Builder builder = builder();
        Path config = java.nio.file.Files.writeString(tmp.resolve("mirror.yaml"), builder.yaml());
        Path directory = configurationCalling(
                MirrorFixture.HOST + "/corp/a/aws", "1.1.0", MirrorFixture.HOST + "/corp/missing/aws", "1.0.0");

        java.io.ByteArrayOutputStream output = new java.io.ByteArrayOutputStream();
        int exit =
                warm(output, "--config", config.toString(), "--platform", "linux_amd64", "--dir", directory.toString());
        assertThat(exit).as("one module failed").isEqualTo(1);
        assertThat(output.toString(StandardCharsets.UTF_8))
                .contains("module " + MirrorFixture.HOST + "/corp/a/aws 1.1.0: done")
                .contains("FAILED: module " + MirrorFixture.HOST + "/corp/missing/aws");

        origin.close();
        mirror = builder.start();
        HttpResponse<byte[]> archive = followDownload(mirror.get(path("corp/a/aws", "1.1.0/download")));
        assertThat(archive.statusCode()).isEqualTo(200);
        assertThat(archive.body()).isEqualTo(ModuleArchives.tarGz(module("a 1")));
    }

    /** What a command printed, and its exit code. */
    private record Outcome(int exit, String output) {}

    /** Runs the command {@code make} builds around an output stream, as its user would. */
    private static Outcome run(Function<java.io.PrintStream, Object> make, String... args) {
        java.io.ByteArrayOutputStream output = new java.io.ByteArrayOutputStream();
        int exit = new picocli.CommandLine(make.apply(new java.io.PrintStream(output, true, StandardCharsets.UTF_8)))
                .execute(args);
        return new Outcome(exit, output.toString(StandardCharsets.UTF_8));
    }

    /**
     * {@code export} for linux_amd64 of a configuration calling {@code corp/a/aws} at {@code constraint}, from a
     * mirror of the origin caching in {@code source-cache}, into {@code modules.tar}.
     */
    private Outcome export(String constraint) throws Exception {
        Path source = java.nio.file.Files.writeString(
                tmp.resolve("source.yaml"),
                MirrorFixture.builder(tmp.resolve("source-cache"), origin).yaml());
        Path directory = configurationCalling(MirrorFixture.HOST + "/corp/a/aws", constraint);
        return run(
                out -> new io.providermirror.server.cli.ExportCommand(out, Map.of()),
                "--config",
                source.toString(),
                "--platform",
                "linux_amd64",
                "--dir",
                directory.toString(),
                "--output",
                tmp.resolve("modules.tar").toString());
    }

    /** The bundle of a successful {@link #export} of {@code corp/a/aws} at {@code version}. */
    private Path exported(String version) throws Exception {
        Outcome export = export(version);
        assertThat(export.exit()).as(export.output()).isZero();
        return tmp.resolve("modules.tar");
    }

    /** {@code import} of {@code bundle} into the cache {@code config} configures. */
    private static Outcome importInto(Path config, Path bundle) {
        return run(
                out -> new io.providermirror.server.cli.ImportCommand(out, Map.of()),
                "--config",
                config.toString(),
                bundle.toString());
    }

    @Test
    void exportCarriesModulesWithTheirPinsAndVersionListsAndAnOfflineMirrorServesThemAfterTheImport() throws Exception {
        registry.serveArchive("/archives/a-1.tar.gz", ModuleArchives.tarGz(module("a 1")));
        registry.serveArchive("/archives/a-0.tar.gz", ModuleArchives.tarGz(module("a 0")));
        registry.publish("corp", "a", "aws", "1.1.0", "/archives/a-1.tar.gz");
        registry.publish("corp", "a", "aws", "1.0.0", "/archives/a-0.tar.gz");
        Outcome export = export("~> 1.0");
        Path bundle = tmp.resolve("modules.tar");
        String exportOutput = export.output();
        assertThat(export.exit()).as(exportOutput).isZero();
        assertThat(exportOutput)
                .contains(
                        "export: cache directory " + tmp.resolve("source-cache").toAbsolutePath())
                .contains("export: modules: 1 fetched, 0 already cached, 0 failed")
                .contains("1 module(s), 1 module version(s)")
                .doesNotContain("warm:");

        MirrorFixture.Builder target = builder().set("upstream.offline", true);
        Path targetConfig = java.nio.file.Files.writeString(tmp.resolve("target.yaml"), target.yaml());
        Outcome imported = importInto(targetConfig, bundle);
        String importOutput = imported.output();
        assertThat(imported.exit()).as(importOutput).isZero();
        assertThat(importOutput)
                .contains("import: cache directory " + tmp.resolve("cache").toAbsolutePath())
                .contains("0 provider(s), 0 provider version(s), 0 archive(s); 1 module(s), 1 module version(s), "
                        + "verified and cached; new here: 0 archive(s), 1 module version(s), 1 version(s) added to "
                        + "version lists");
        assertThat(exportOutput)
                .as("export and import count what the bundle carries the same way")
                .contains("0 provider(s), 0 provider version(s), 0 archive(s); 1 module(s), 1 module version(s)");

        origin.close();
        mirror = target.start();
        HttpResponse<byte[]> versions = mirror.get(path("corp/a/aws", "versions"));
        assertThat(versions.statusCode())
                .as(new String(versions.body(), StandardCharsets.UTF_8))
                .isEqualTo(200);
        assertThat(new String(versions.body(), StandardCharsets.UTF_8))
                .as("just the bundled version, so the CLI never picks one the bundle lacks")
                .isEqualTo("{\"modules\":[{\"versions\":[{\"version\":\"1.1.0\"}]}]}");
        HttpResponse<byte[]> download = mirror.get(path("corp/a/aws", "1.1.0/download"));
        assertThat(download.headers().firstValue("X-Cache")).contains("HIT");
        HttpResponse<byte[]> archive = followDownload(download);
        assertThat(archive.statusCode()).isEqualTo(200);
        assertThat(archive.body()).isEqualTo(ModuleArchives.tarGz(module("a 1")));
        mirror.close();
        mirror = null;

        Outcome again = importInto(targetConfig, bundle);
        assertThat(again.exit()).isZero();
        assertThat(again.output())
                .contains("1 module(s), 1 module version(s), verified; nothing new: the cache held all of it already");
    }

    @Test
    void aBundleWithoutAModulesVersionListIsRefusedSinceAnOfflineMirrorCouldNotListWhatItImported() throws Exception {
        registry.serveArchive("/archives/a-1.tar.gz", ModuleArchives.tarGz(module("a 1")));
        registry.publish("corp", "a", "aws", "1.1.0", "/archives/a-1.tar.gz");
        Path bundle = exported("1.1.0");
        // As a bundle written before bundles carried modules' version lists: the list and its manifest entry gone.
        String list = "_modules/" + MirrorFixture.HOST + "/corp/a/aws/versions.json";
        Path withoutList = tmp.resolve("without-list.tar");
        Map<String, byte[]> entries = new LinkedHashMap<>();
        try (var tar = new org.apache.commons.compress.archivers.tar.TarArchiveInputStream(
                java.nio.file.Files.newInputStream(bundle))) {
            for (var entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
                entries.put(entry.getName(), tar.readAllBytes());
            }
        }
        assertThat(entries.remove(list))
                .as("the bundle's version list of the module")
                .isNotNull();
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        var manifest = (com.fasterxml.jackson.databind.node.ObjectNode)
                json.readTree(entries.get(io.providermirror.server.bundle.BundleManifest.PATH));
        var listed = manifest.withArray("entries");
        for (int i = listed.size() - 1; i >= 0; i--) {
            if (listed.get(i).get("path").asText().equals(list)) {
                listed.remove(i);
            }
        }
        entries.put(io.providermirror.server.bundle.BundleManifest.PATH, json.writeValueAsBytes(manifest));
        try (var tar = new org.apache.commons.compress.archivers.tar.TarArchiveOutputStream(
                java.nio.file.Files.newOutputStream(withoutList))) {
            tar.setLongFileMode(org.apache.commons.compress.archivers.tar.TarArchiveOutputStream.LONGFILE_POSIX);
            for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
                var header = new org.apache.commons.compress.archivers.tar.TarArchiveEntry(entry.getKey());
                header.setSize(entry.getValue().length);
                tar.putArchiveEntry(header);
                tar.write(entry.getValue());
                tar.closeArchiveEntry();
            }
        }

        Path targetConfig = java.nio.file.Files.writeString(
                tmp.resolve("target.yaml"),
                builder().set("upstream.offline", true).yaml());
        Outcome imported = importInto(targetConfig, withoutList);
        assertThat(imported.exit()).as(imported.output()).isEqualTo(1);
        assertThat(imported.output())
                .contains("REFUSED " + withoutList)
                .contains("module " + MirrorFixture.HOST + "/corp/a/aws 1.1.0: the bundle lacks the module's "
                        + "version list")
                .contains("export it again");
    }

    @Test
    void importRefusesABundleWhoseModuleContentDiffersFromWhatTheCachePinnedAndKeepsThePin() throws Exception {
        registry.serveArchive("/archives/a-1.tar.gz", ModuleArchives.tarGz(module("exported")));
        registry.publish("corp", "a", "aws", "1.1.0", "/archives/a-1.tar.gz");
        Path bundle = exported("1.1.0");

        // The target pinned other content for the same version (the archive was replaced at the origin).
        registry.serveArchive("/archives/a-1.tar.gz", ModuleArchives.tarGz(module("pinned here")));
        MirrorFixture.Builder target = builder();
        mirror = target.start();
        assertThat(followDownload(mirror.get(path("corp/a/aws", "1.1.0/download")))
                        .statusCode())
                .isEqualTo(200);
        mirror.close();
        mirror = null;
        Path targetConfig = java.nio.file.Files.writeString(tmp.resolve("target.yaml"), target.yaml());

        Outcome imported = importInto(targetConfig, bundle);
        assertThat(imported.exit()).isEqualTo(1);
        assertThat(imported.output())
                .contains("REFUSED")
                .contains("this cache pinned sha256 ")
                .contains("the cached pin stays");

        origin.close();
        mirror = target.start();
        assertThat(followDownload(mirror.get(path("corp/a/aws", "1.1.0/download")))
                        .body())
                .isEqualTo(ModuleArchives.tarGz(module("pinned here")));
    }

    @Test
    void importRefusesABundleWhoseModuleArchiveWasSwappedForOtherBytesOfTheSameLength() throws Exception {
        byte[] genuine = ModuleArchives.tarGz(module("exported"));
        // Another well-formed module archive of exactly the same length: only its sha256 tells it apart.
        byte[] other = java.util.stream.IntStream.range(0, 10_000)
                .mapToObj(i -> ModuleArchives.tarGz(module("other " + i)))
                .filter(candidate -> candidate.length == genuine.length)
                .findFirst()
                .orElseThrow();
        registry.serveArchive("/archives/a-1.tar.gz", genuine);
        registry.publish("corp", "a", "aws", "1.1.0", "/archives/a-1.tar.gz");
        Path bundle = exported("1.1.0");
        java.util.function.BiFunction<String, byte[], byte[]> swapped =
                (name, bytes) -> name.endsWith("/module.tar.gz") ? other : bytes;
        MirrorFixture.Builder target = builder();
        Path targetConfig = java.nio.file.Files.writeString(tmp.resolve("target.yaml"), target.yaml());

        // The manifest still names the genuine archive: the bytes are not the ones it lists.
        Path altered = io.providermirror.server.bundle.BundleRewrite.rewrite(
                bundle, tmp.resolve("altered.tar"), swapped, false);
        Outcome refused = importInto(targetConfig, altered);
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.output()).contains("REFUSED").contains("was altered");

        // The manifest rewritten to agree: the pin in the bundle still names the genuine archive's sha256.
        Path consistent = io.providermirror.server.bundle.BundleRewrite.rewrite(
                bundle, tmp.resolve("consistent.tar"), swapped, true);
        Outcome refusedAgain = importInto(targetConfig, consistent);
        assertThat(refusedAgain.exit()).isEqualTo(1);
        assertThat(refusedAgain.output())
                .contains("REFUSED")
                .contains("module " + MirrorFixture.HOST + "/corp/a/aws 1.1.0")
                .contains("is not the one its pin names");

        java.nio.file.Files.createDirectories(tmp.resolve("cache"));
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(tmp.resolve("cache"))) {
            assertThat(files.filter(java.nio.file.Files::isRegularFile)
                            .map(Path::toString)
                            .filter(name -> name.contains("module.") || name.endsWith("pin.json")))
                    .as("nothing of either bundle was imported")
                    .isEmpty();
        }
    }

    @Test
    void aCacheThatCannotOpenAModuleArchiveIsAnsweredAsTheMirrorUnavailableNamingTheArchive() throws Exception {
        registry.serveArchive("/archives/disk.tar.gz", ModuleArchives.tarGz(module("disk")));
        registry.publish("corp", "disk", "aws", "1.0.0", "/archives/disk.tar.gz");
        mirror = builder().start(store -> new io.providermirror.testkit.ForwardingBlobStore(store) {
            @Override
            public java.util.Optional<io.providermirror.cache.OpenBlob> openVerified(
                    io.providermirror.cache.CacheKey key) {
                return java.util.Optional.empty();
            }

            @Override
            public java.util.Optional<io.providermirror.cache.OpenBlob> open(io.providermirror.cache.CacheKey key)
                    throws java.io.IOException {
                throw new java.io.IOException("the disk went away");
            }
        });

        HttpResponse<byte[]> archive = followDownload(mirror.get(path("corp/disk/aws", "1.0.0/download")));

        assertThat(archive.statusCode())
                .as("the mirror's own trouble, not the origin's")
                .isEqualTo(503);
        assertThat(MirrorFixture.error(archive))
                .contains("the mirror cannot read")
                .contains("an operator must check the cache")
                .contains("corp/disk/aws")
                .contains("the disk went away");
    }
}
