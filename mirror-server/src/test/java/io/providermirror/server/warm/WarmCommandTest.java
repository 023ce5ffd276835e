package io.providermirror.server.warm;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.server.cli.WarmCommand;
import io.providermirror.server.scenario.MirrorFixtures;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.FakeOriginExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** warm, through a running mirror and directly in a cache directory, from arguments, lock files and .tf files. */
final class WarmCommandTest {

    @TempDir
    Path tmp;

    @RegisterExtension
    final FakeOriginExtension fixture = new FakeOriginExtension();

    private final List<FakeOrigin.Release> releases = new ArrayList<>();
    private String output;

    @BeforeEach
    void publish() {
        for (String version : new String[] {"1.0.0", "1.1.0", "2.0.0"}) {
            releases.add(fixture.origin()
                    .publish("acme", "wa", version, FakeOrigin.Tamper.NONE, 10_000, "linux_amd64", "darwin_arm64"));
        }
        releases.add(fixture.origin().publish("acme", "wb", "0.1.0", FakeOrigin.Tamper.NONE, 10_000, "linux_amd64"));
    }

    @AfterEach
    void stop() {
        // warm quiets the log as a command does in its own process; the next test in this JVM wants it back.
        root().setLevel(rootLevel);
    }

    private final ch.qos.logback.classic.Level rootLevel = root().getLevel();

    private static ch.qos.logback.classic.Logger root() {
        return (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    private int warm(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int exit = new CommandLine(new WarmCommand(out, Map.of(), UnaryOperator.identity())).execute(args);
        output = bytes.toString(StandardCharsets.UTF_8);
        return exit;
    }

    private FakeOrigin.Release release(String type, String version) {
        return releases.stream()
                .filter(r -> r.type().equals(type) && r.version().equals(version))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void throughARunningMirrorTheNewestMatchingVersionsForEachPlatformAndAgainResumes() throws Exception {
        try (var mirror = MirrorFixtures.start(tmp.resolve("cache"), fixture.origin())) {
            String[] args = {
                "--mirror",
                "https://localhost:" + mirror.port() + "/providers/",
                "--ca",
                mirror.ca().toString(),
                "--platform",
                "linux_amd64,darwin_arm64",
                "example.test/acme/wa@~> 1.0",
                "example.test/acme/wb"
            };
            assertThat(warm(args)).as(output).isZero();
            assertThat(output)
                    .contains("warm: 3 fetched")
                    .contains("0 already cached")
                    .contains("0 failed")
                    .contains("done     example.test/acme/wa 1.1.0 linux_amd64")
                    .contains("done     example.test/acme/wa 1.1.0 darwin_arm64")
                    .contains("not offered: example.test/acme/wb 0.1.0 darwin_arm64");
            assertThat(fixture.origin().archiveDownloads(release("wa", "1.1.0"), "linux_amd64"))
                    .isEqualTo(1);
            assertThat(fixture.origin().archiveDownloads(release("wa", "1.0.0"), "linux_amd64"))
                    .as("only the newest match")
                    .isZero();

            assertThat(warm(args)).as(output).isZero();
            assertThat(output).contains("warm: 0 fetched").contains("3 already cached");
            assertThat(fixture.origin().archiveDownloads(release("wa", "1.1.0"), "linux_amd64"))
                    .isEqualTo(1);
        }
    }

    @Test
    void fromALockFileAndTheRequiredProvidersOfAConfiguration() throws Exception {
        Path lock = Files.writeString(tmp.resolve(".terraform.lock.hcl"), """
                # This file is maintained automatically by "terraform init".
                provider "example.test/acme/wa" {
                  version     = "2.0.0"
                  constraints = ">= 2.0.0"
                  hashes = [
                    "h1:aaaa",
                  ]
                }
                """);
        Path project = Files.createDirectories(tmp.resolve("project"));
        Files.writeString(project.resolve("versions.tf"), """
                terraform {
                  required_version = ">= 1.5"
                  required_providers {
                    wb = {
                      source  = "example.test/acme/wb"
                      version = ">= 0.1"
                    }
                  }
                }
                variable "region" { default = "eu-west-1" }
                resource "wb_thing" "x" { name = "x-${var.region}" }
                """);
        try (var mirror = MirrorFixtures.start(tmp.resolve("cache"), fixture.origin())) {
            assertThat(warm(
                            "--mirror",
                            "https://localhost:" + mirror.port() + "/providers/",
                            "--ca",
                            mirror.ca().toString(),
                            "--platform",
                            "linux_amd64",
                            "--lock-file",
                            lock.toString(),
                            "--dir",
                            project.toString()))
                    .as(output)
                    .isZero();
            assertThat(output).contains("warm: 2 fetched");
            assertThat(fixture.origin().archiveDownloads(release("wa", "2.0.0"), "linux_amd64"))
                    .isEqualTo(1);
            assertThat(fixture.origin().archiveDownloads(release("wb", "0.1.0"), "linux_amd64"))
                    .isEqualTo(1);
        }
    }

    @Test
    void directlyInACacheDirectoryThatAnOfflineMirrorThenServes() throws Exception {
        Path config = Files.writeString(
                tmp.resolve("mirror.yaml"), MirrorFixtures.yaml(tmp.resolve("cache"), fixture.origin()));
        assertThat(warm(
                        "--config",
                        config.toString(),
                        "--platform",
                        "linux_amd64",
                        "--all-versions",
                        "example.test/acme/wa@>= 1.1"))
                .as(output)
                .isZero();
        assertThat(output).contains("warm: 2 fetched");
        try (var offline = MirrorFixtures.startOffline(tmp.resolve("cache"), fixture.origin())) {
            fixture.origin().close();
            assertThat(offline.get("/providers/example.test/acme/wa/terraform-provider-wa_2.0.0_linux_amd64.zip"))
                    .isEqualTo(release("wa", "2.0.0").archives().get("linux_amd64"));
            // Complete hashes: the h1: of each warmed platform was stored before warm closed the cache.
            for (String version : List.of("1.1.0", "2.0.0")) {
                String document = new String(
                        offline.get("/providers/example.test/acme/wa/" + version + ".json"), StandardCharsets.UTF_8);
                assertThat(document).as(version).containsPattern("\"linux_amd64\":\\{[^}]*\"h1:");
            }
        }
    }

    @Test
    void aRunningMirrorsCacheDirectoryIsWarmedThroughItNotBesideIt() throws Exception {
        try (var mirror = MirrorFixtures.start(tmp.resolve("cache"), fixture.origin())) {
            Path config = Files.writeString(
                    tmp.resolve("mirror.yaml"), MirrorFixtures.yaml(tmp.resolve("cache"), fixture.origin()));
            assertThat(warm("--config", config.toString(), "--platform", "linux_amd64", "example.test/acme/wb"))
                    .isEqualTo(2);
            assertThat(output)
                    .contains("another provider-mirror process is using the cache directory")
                    .contains("warm --mirror");
            // The refused warm fetched nothing beside the running mirror, which goes on serving.
            assertThat(fixture.origin().archiveDownloads(release("wb", "0.1.0"), "linux_amd64"))
                    .isZero();
            assertThat(mirror.get("/providers/example.test/acme/wb/index.json")).isNotEmpty();
        }
    }

    @Test
    void aMirrorWhoseCertificateIsNotTrustedIsExplainedWithTheCaOption() throws Exception {
        try (var mirror = MirrorFixtures.start(tmp.resolve("cache"), fixture.origin())) {
            // The origin's CA is not the mirror's: the handshake fails.
            assertThat(warm(
                            "--mirror",
                            "https://localhost:" + mirror.port() + "/providers/",
                            "--ca",
                            fixture.origin().caCertificate().toString(),
                            "--platform",
                            "linux_amd64",
                            "example.test/acme/wb"))
                    .isEqualTo(1);
            assertThat(output)
                    .contains("cannot verify the certificate of https://localhost:" + mirror.port())
                    .contains("give the CA that signed it with --ca FILE");
        }
    }

    @Test
    void aTamperedArchiveSaysWhyTheMirrorRefusedIt() throws Exception {
        fixture.origin().publish("acme", "wt", "1.0.0", FakeOrigin.Tamper.ARCHIVE_BYTES, 3_000_000, "linux_amd64");
        try (var mirror = MirrorFixtures.start(tmp.resolve("cache"), fixture.origin())) {
            assertThat(warm(
                            "--mirror",
                            "https://localhost:" + mirror.port() + "/providers/",
                            "--ca",
                            mirror.ca().toString(),
                            "--platform",
                            "linux_amd64",
                            "example.test/acme/wt"))
                    .isEqualTo(1);
            // Refused before the answer started (502 with the mirror's words) or while streaming (cut off).
            assertThat(output)
                    .contains("FAILED: example.test/acme/wt 1.0.0 linux_amd64")
                    .containsPattern("failed verification|does not match the sha256")
                    .doesNotContain(": closed");
        }
    }

    @Test
    void commandOutputIsForPeopleTheLogShowsOnlyWarningsUnlessVerbose() throws Exception {
        Path config = Files.writeString(
                tmp.resolve("mirror.yaml"), MirrorFixtures.yaml(tmp.resolve("cache"), fixture.origin()));
        assertThat(warm("--config", config.toString(), "--platform", "linux_amd64", "example.test/acme/wb"))
                .isZero();
        assertThat(root().getLevel()).isEqualTo(ch.qos.logback.classic.Level.WARN);
        assertThat(org.slf4j.LoggerFactory.getLogger("io.providermirror.server.providers.Archives")
                        .isInfoEnabled())
                .isFalse();
        // --verbose leaves the level as the process has it: INFO, as the built-in logging sets it (another test in
        // this JVM may have left a command's WARN behind).
        root().setLevel(ch.qos.logback.classic.Level.INFO);
        assertThat(warm(
                        "--verbose",
                        "--config",
                        config.toString(),
                        "--platform",
                        "linux_amd64",
                        "example.test/acme/wa"))
                .isZero();
        assertThat(org.slf4j.LoggerFactory.getLogger("io.providermirror.server.providers.Archives")
                        .isInfoEnabled())
                .isTrue();
    }

    @Test
    void failuresAreListedAndTheExitCodeSaysSo() throws Exception {
        try (var mirror = MirrorFixtures.start(tmp.resolve("cache"), fixture.origin())) {
            assertThat(warm(
                            "--mirror",
                            "https://localhost:" + mirror.port() + "/providers/",
                            "--ca",
                            mirror.ca().toString(),
                            "--platform",
                            "linux_amd64",
                            "example.test/acme/missing",
                            "example.test/acme/wa@> 9"))
                    .isEqualTo(1);
            assertThat(output)
                    .contains("FAILED: example.test/acme/missing (argument 'example.test/acme/missing'): "
                            + "cannot list its versions")
                    .contains("no version matches > 9");
        }
        assertThat(warm("--platform", "linux_amd64")).isEqualTo(2);
        assertThat(output).contains("nothing to warm");
        assertThat(warm("--platform", "linux_amd64", "not-an-address")).isEqualTo(2);
        assertThat(output).contains("'not-an-address' is not a provider address");
    }
}
