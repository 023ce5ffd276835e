package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.S3ProxyServer;
import io.providermirror.testkit.StallingServer;
import io.providermirror.testkit.TerraformCli;
import io.providermirror.testkit.TerraformWorkspace;
import io.providermirror.upstream.TrustedCertificates;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several mirror instances on one bucket of a real S3 API server (S3Proxy on loopback), each with its own cache
 * directory: one origin fetch per archive across them, and a holder killed with SIGKILL mid-fill whose fill
 * another instance takes over.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class FleetIT {

    @RegisterExtension
    static final MirrorBucket bucket = MirrorBucket.named("fleet");

    @TempDir
    Path tmp;

    private static MirrorFixture.Builder onBucket(Path cache, FakeOrigin origin, String prefix) {
        return bucket.mirror(cache, origin, prefix, "fillLeaseDuration", "3s").set("upstream.readTimeout", "120s");
    }

    @Test
    void eightColdClientsSplitOverTwoInstancesCauseOneOriginFetchAndAllGetTheRightBytes() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-split"))) {
            FakeOrigin.Release release =
                    origin.publish("acme", "large", "1.0.0", FakeOrigin.Tamper.NONE, 30_000_000, "linux_amd64");
            byte[] genuine = release.archives().get("linux_amd64");
            String base = "/providers/example.test/acme/large/";
            String archive = base + "terraform-provider-large_1.0.0_linux_amd64.zip";
            try (MirrorFixture a =
                            onBucket(tmp.resolve("cache-a"), origin, "split/").start();
                    MirrorFixture b =
                            onBucket(tmp.resolve("cache-b"), origin, "split/").start()) {
                assertThat(a.get(base + "1.0.0.json").statusCode()).isEqualTo(200);
                assertThat(b.get(base + "1.0.0.json").statusCode()).isEqualTo(200);

                List<CompletableFuture<HttpResponse<byte[]>>> clients = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    MirrorFixture instance = i % 2 == 0 ? a : b;
                    clients.add(CompletableFuture.supplyAsync(() -> {
                        try {
                            return instance.get(archive);
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException(e);
                        }
                    }));
                }
                for (CompletableFuture<HttpResponse<byte[]>> client : clients) {
                    HttpResponse<byte[]> response = client.get(120, TimeUnit.SECONDS);
                    assertThat(response.statusCode()).isEqualTo(200);
                    assertThat(response.body()).isEqualTo(genuine);
                }
                assertThat(origin.archiveDownloads(release, "linux_amd64")).isEqualTo(1);

                // A third instance, on a fresh directory, serves it from the bucket with no origin request.
                try (MirrorFixture c =
                        onBucket(tmp.resolve("cache-c"), origin, "split/").start()) {
                    assertThat(c.get(archive).body()).isEqualTo(genuine);
                }
                assertThat(origin.archiveDownloads(release, "linux_amd64")).isEqualTo(1);
            }
        }
    }

    @Test
    void aHolderKilledMidFillIsTakenOverByAnotherInstanceAndNothingPartialIsServed() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-kill"))) {
            FakeOrigin.Release crash =
                    origin.publish("acme", "crash", "1.0.0", FakeOrigin.Tamper.NONE, 3_000_000, "linux_amd64");
            byte[] genuine = crash.archives().get("linux_amd64");
            String path = "/providers/example.test/acme/crash/terraform-provider-crash_1.0.0_linux_amd64.zip";
            try (StallingServer slow = StallingServer.start(origin.certificates(), genuine, 1_000_000)) {
                origin.pointArchiveAt(crash, "linux_amd64", slow.url("/crash.zip"));
                Path cacheA = tmp.resolve("kill-a");
                MirrorFixture.Builder configA = onBucket(cacheA, origin, "kill/")
                        .set(
                                "upstream.hosts",
                                Map.of(
                                        "example.test",
                                        Map.of(
                                                "discoveryUrl",
                                                origin.discoveryUrl().toString(),
                                                "downloadHosts",
                                                List.of("127.0.0.1:"
                                                        + slow.url("/").getPort()))));
                Path config = Files.writeString(tmp.resolve("kill-a.yaml"), configA.yaml());
                PackagedMirror a = PackagedMirror.start(
                        config,
                        tmp.resolve("kill-a.log"),
                        Map.of(
                                "AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY,
                                "AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY,
                                "AWS_REGION", "us-east-1"));
                MirrorFixture.Builder configB = onBucket(tmp.resolve("kill-b"), origin, "kill/")
                        .set(
                                "upstream.hosts",
                                Map.of(
                                        "example.test",
                                        Map.of(
                                                "discoveryUrl",
                                                origin.discoveryUrl().toString(),
                                                "downloadHosts",
                                                List.of("127.0.0.1:"
                                                        + slow.url("/").getPort()))));
                try (MirrorFixture b = configB.start()) {
                    HttpClient clientA = HttpClient.newBuilder()
                            .sslContext(TrustedCertificates.sslContext(MirrorFixtures.generatedCa(cacheA)))
                            .build();
                    CompletableFuture<HttpResponse<byte[]>> onA = clientA.sendAsync(
                            HttpRequest.newBuilder(URI.create("https://localhost:" + a.port() + path))
                                    .timeout(Duration.ofMinutes(2))
                                    .build(),
                            HttpResponse.BodyHandlers.ofByteArray());
                    await().atMost(Duration.ofMinutes(1))
                            .until(() -> temporaryFiles(cacheA).stream()
                                    .anyMatch(p -> p.toFile().length() >= 500_000));
                    CompletableFuture<HttpResponse<byte[]>> onB = CompletableFuture.supplyAsync(() -> {
                        try {
                            return b.get(path);
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException(e);
                        }
                    });

                    a.process().destroyForcibly(); // SIGKILL
                    assertThat(a.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
                    assertThat(onA).failsWithin(Duration.ofSeconds(30));
                    slow.heal();

                    HttpResponse<byte[]> response = onB.get(120, TimeUnit.SECONDS);
                    assertThat(response.statusCode()).isEqualTo(200);
                    assertThat(response.body()).isEqualTo(genuine);
                } finally {
                    a.close();
                }
                // A fresh instance finds the archive whole in the bucket.
                try (MirrorFixture c =
                        onBucket(tmp.resolve("kill-c"), origin, "kill/").start()) {
                    assertThat(c.get(path).body()).isEqualTo(genuine);
                }
            }
        }
    }

    @Test
    void terraformInitThroughEachInstanceInstallsTheProviderTheFleetFetchedOnce() throws Exception {
        Path terraform = TerraformCli.locateOrSkip();
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-terraform"))) {
            FakeOrigin.Release release = origin.publish("acme", "fleet", "1.0.0", "linux_amd64");
            try (MirrorFixture a =
                            onBucket(tmp.resolve("tf-a"), origin, "terraform/").start();
                    MirrorFixture b =
                            onBucket(tmp.resolve("tf-b"), origin, "terraform/").start()) {
                for (MirrorFixture instance : List.of(a, b)) {
                    Path root = Files.createDirectories(tmp.resolve("tf-run-" + instance.mirror.port()));
                    Path cliConfig = Files.writeString(
                            root.resolve("terraform.rc"),
                            TerraformWorkspace.networkMirror(
                                    "https://localhost:" + instance.mirror.port() + "/providers/"));
                    TerraformCli cli = TerraformCli.using(
                            terraform,
                            Files.createDirectories(root.resolve("home")),
                            cliConfig,
                            instance.mirror.generatedCaFile().orElseThrow());
                    Path directory = Files.createDirectories(root.resolve("config"));
                    Files.writeString(directory.resolve("main.tf"), """
                            terraform {
                              required_providers {
                                fleet = {
                                  source  = "example.test/acme/fleet"
                                  version = "1.0.0"
                                }
                              }
                            }
                            """);
                    TerraformCli.Result init = cli.run(directory, "init", "-input=false", "-no-color");
                    assertThat(init.exitCode()).as(init.output()).isZero();
                    assertThat(init.output()).contains("Installed example.test/acme/fleet v1.0.0");
                }
                assertThat(origin.archiveDownloads(release, "linux_amd64")).isEqualTo(1);
            }
        }
    }

    private static List<Path> temporaryFiles(Path cache) throws IOException {
        if (!Files.isDirectory(cache.resolve("tmp"))) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(cache.resolve("tmp"))) {
            return files.toList();
        }
    }
}
