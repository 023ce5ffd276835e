package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.PrometheusScrape;
import io.providermirror.testkit.TerraformCli;
import io.providermirror.testkit.TerraformExtension;
import io.providermirror.testkit.TerraformWorkspace;
import io.providermirror.upstream.verify.PackageHashes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code terraform} CLI installs providers through the running mirror, whose origin for
 * {@code example.test} is a signed fake registry routed there by {@code discoveryUrl}.
 */
final class TerraformEndToEndIT {

    private static final List<String> PLATFORMS = List.of("linux_amd64", "darwin_arm64", "windows_amd64");

    @RegisterExtension
    static final TerraformExtension endToEnd = new TerraformExtension();

    @TempDir
    static Path tmp;

    private static TerraformMirror run;
    private static TerraformCli cli;
    private static String mirrorUrl;

    @BeforeAll
    static void start() throws Exception {
        run = TerraformMirror.start(endToEnd, tmp).orElse(null);
        if (run == null) {
            return;
        }
        mirrorUrl = "https://localhost:" + run.mirror().mirror.port() + "/providers/";
        Path cliConfig = Files.writeString(tmp.resolve("terraform.rc"), TerraformWorkspace.networkMirror(mirrorUrl));
        Files.createDirectories(tmp.resolve("home"));
        cli = TerraformCli.using(
                run.terraform(),
                tmp.resolve("home"),
                cliConfig,
                run.mirror().mirror.generatedCaFile().orElseThrow());
    }

    private static Path configuration(String name, String type, String version) throws Exception {
        return TerraformWorkspace.write(
                tmp.resolve(name),
                Map.of("main.tf", TerraformWorkspace.requiredProvider(type, "example.test/acme/" + type, version)));
    }

    private static String h1(FakeOrigin.Release release, String platform) throws Exception {
        Path zip = Files.write(
                Files.createTempFile(tmp, platform, ".zip"), release.archives().get(platform));
        return PackageHashes.h1(zip);
    }

    @Test
    void initInstallsThroughTheMirrorLocksEveryPlatformAndTheSecondInitIsServedFromCache() throws Exception {
        FakeOrigin.Release release = run.origin().publish("acme", "fake", "1.2.0", PLATFORMS.toArray(String[]::new));
        run.origin().publish("acme", "fake", "1.1.0", "linux_amd64");

        Path first = configuration("first", "fake", "~> 1.2");
        TerraformCli.Result init = cli.run(first, "init", "-input=false", "-no-color");
        assertThat(init.exitCode()).as(init.output()).isZero();
        assertThat(init.output()).contains("Installing example.test/acme/fake v1.2.0");
        assertThat(
                        first.resolve(
                                ".terraform/providers/example.test/acme/fake/1.2.0/linux_amd64/terraform-provider-fake_v1.2.0_x5"))
                .exists();
        assertThat(TerraformWorkspace.lockedHashes(first))
                .as("the lock file's h1: is the origin package's")
                .contains(h1(release, "linux_amd64"));
        assertThat(run.origin().archiveDownloads(release, "linux_amd64")).isEqualTo(1);

        TerraformCli.Result lock = cli.run(
                first,
                "providers",
                "lock",
                "-no-color",
                "-net-mirror=" + mirrorUrl,
                "-platform=linux_amd64",
                "-platform=darwin_arm64",
                "-platform=windows_amd64");
        assertThat(lock.exitCode()).as(lock.output()).isZero();
        Set<String> locked = TerraformWorkspace.lockedHashes(first);
        for (String platform : PLATFORMS) {
            assertThat(locked).as(platform).contains(h1(release, platform));
        }

        Path second = configuration("second", "fake", "1.2.0");
        TerraformCli.Result again = cli.run(second, "init", "-input=false", "-no-color");
        assertThat(again.exitCode()).as(again.output()).isZero();
        assertThat(run.origin().archiveDownloads(release, "linux_amd64"))
                .as("the second init came from the cache")
                .isEqualTo(1);
    }

    @Test
    void initRefusesAPackageThatDoesNotMatchTheSignedChecksums() throws Exception {
        FakeOrigin.Release release =
                run.origin().publish("acme", "tampered", "1.0.0", FakeOrigin.Tamper.ARCHIVE_BYTES, 0, "linux_amd64");
        Path directory = configuration("tampered", "tampered", "1.0.0");
        TerraformCli.Result init = cli.run(directory, "init", "-input=false", "-no-color");
        assertThat(init.exitCode()).as(init.output()).isNotZero();
        assertThat(directory.resolve(".terraform/providers/example.test/acme/tampered/1.0.0/linux_amd64"))
                .doesNotExist();
        assertThat(run.origin().archiveDownloads(release, "linux_amd64")).isPositive();
        // The mirror refused it itself (terraform would too): counted, and nothing of it cached.
        PrometheusScrape metrics = PrometheusScrape.parse(
                new String(run.mirror().get("/metrics").body(), java.nio.charset.StandardCharsets.UTF_8));
        assertThat(metrics.value(
                        "mirror_verification_failures_total", "host", "example.test", "reason", "archive_hash"))
                .isPositive();
        try (var files = Files.walk(run.mirror().cacheDirectory)) {
            assertThat(files.map(Path::toString)).noneMatch(name -> name.contains("tampered") && name.endsWith(".zip"));
        }
    }

    @Test
    void initRefusesAPackageWhoseChecksumsAreNotSignedByTheOriginsKey() throws Exception {
        run.origin().publish("acme", "forged", "1.0.0", FakeOrigin.Tamper.WRONG_SIGNING_KEY, 0, "linux_amd64");
        Path directory = configuration("forged", "forged", "1.0.0");
        TerraformCli.Result init = cli.run(directory, "init", "-input=false", "-no-color");
        assertThat(init.exitCode()).as(init.output()).isNotZero();
        assertThat(init.output()).contains("example.test/acme/forged");
        assertThat(run.origin().requestsMatching("/files/acme/forged/.*\\.zip"))
                .as("no archive is fetched")
                .isZero();
    }

    @Test
    void afterOneOrdinaryInitAFreshMirrorExportsEveryMetricTheDashboardAndAlertRulesRead() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("fresh"));
        run.origin().publish("acme", "ordinary", "1.0.0", "linux_amd64");
        try (MirrorFixture fresh = MirrorFixture.start(root.resolve("cache"), run.origin(), Duration.ofMinutes(15))) {
            Path cliConfig = Files.writeString(
                    root.resolve("terraform.rc"),
                    TerraformWorkspace.networkMirror("https://localhost:" + fresh.mirror.port() + "/providers/"));
            TerraformCli freshCli = TerraformCli.using(
                    run.terraform(),
                    Files.createDirectories(root.resolve("home")),
                    cliConfig,
                    fresh.mirror.generatedCaFile().orElseThrow());
            Path directory = configuration("ordinary", "ordinary", "1.0.0");
            TerraformCli.Result init = freshCli.run(directory, "init", "-input=false", "-no-color");
            assertThat(init.exitCode()).as(init.output()).isZero();

            // Nothing provoked: the series the dashboard and the alert rules read exist from the start.
            java.util.Set<String> missing = new java.util.TreeSet<>(DeployAssetsTest.metricsTheAssetsRead());
            missing.removeAll(PrometheusScrape.parse(
                            new String(fresh.get("/metrics").body(), java.nio.charset.StandardCharsets.UTF_8))
                    .names());
            assertThat(missing)
                    .as("metrics the dashboard or alert rules read that the mirror does not export")
                    .isEmpty();
        }
    }
}
