package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.server.cli.ExportCommand;
import io.providermirror.server.cli.ImportCommand;
import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.GitHttpServer;
import io.providermirror.testkit.SampleModules;
import io.providermirror.testkit.TerraformCli;
import io.providermirror.testkit.TerraformWorkspace;
import io.providermirror.upstream.verify.PackageHashes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The closed-network workflow end to end, with the real {@code terraform} and a {@code PATH} without {@code git}:
 * {@code export --dir} of a configuration that uses a provider and registry modules (a tar.gz, a tar.gz with
 * {@code //subdir}, a git tag, a git tag with {@code //subdir}) from a mirror that reaches the origin and its git
 * server; {@code import} into a fresh mirror with {@code upstream.offline: true}; the origin and the git server
 * stopped; then {@code init} and {@code apply} through {@code network_mirror} plus the {@code modules.v1} face, and
 * again through the {@code providers.v1} and {@code modules.v1} faces. The tests run in order and share the mirrors.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class AirGapEndToEndIT {

    private static final List<String> PLATFORMS = List.of("darwin_arm64", "linux_amd64");
    /** What both commands say the bundle carries. */
    private static final String CARRIED =
            "1 provider(s), 1 provider version(s), 2 archive(s) for darwin_arm64, linux_amd64; 4 module(s), "
                    + "4 module version(s)";

    @TempDir
    static Path tmp;

    private static Path terraform;
    private static FakeOrigin origin;
    private static FakeModuleRegistry registry;
    private static GitHttpServer git;
    private static FakeOrigin.Release release;
    private static Path bundle;
    private static MirrorFixture.Builder inside;
    private static MirrorFixture insideMirror;
    private static Path noGitBin;

    @BeforeAll
    static void start() throws Exception {
        terraform = TerraformCli.locate().orElse(null);
        if (terraform == null) {
            return;
        }
        origin = FakeOrigin.start(tmp.resolve("origin"));
        registry = FakeModuleRegistry.of(origin);
        // The git server presents the origin's certificate, so the mirror trusts it as it trusts the origin.
        git = GitHttpServer.start(tmp.resolve("git"), origin.certificates());
        release = origin.publish("acme", "carried", "1.0.0", PLATFORMS.toArray(String[]::new));
        origin.publish("acme", "carried", "1.1.0", PLATFORMS.toArray(String[]::new));
        SampleModules.publish(registry, git, "1.1.0");
        noGitBin = Files.createDirectories(tmp.resolve("bin"));
        Files.createSymbolicLink(noGitBin.resolve("terraform"), terraform.toAbsolutePath());
        bundle = tmp.resolve("closed-network.tar.zst");
        inside = MirrorFixture.builder(tmp.resolve("inside"), origin).set("upstream.offline", true);
    }

    @BeforeEach
    void requireTerraform() {
        TerraformCli.locateOrSkip();
    }

    /** The commands set the root logger to WARN, as for people; other tests in this JVM expect it as it was. */
    private static final ch.qos.logback.classic.Level ROOT_LEVEL = root().getLevel();

    private static ch.qos.logback.classic.Logger root() {
        return (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    @AfterAll
    static void stop() {
        root().setLevel(ROOT_LEVEL);
        if (insideMirror != null) {
            insideMirror.close();
        }
        if (git != null) {
            git.close();
        }
        if (origin != null) {
            origin.close();
        }
    }

    @Test
    @Order(1)
    void exportWritesTheProviderAndTheModulesTheConfigurationUsesFromAMirrorThatReachesTheOrigin() throws Exception {
        Path outside = Files.writeString(
                tmp.resolve("outside.yaml"),
                MirrorFixture.builder(tmp.resolve("outside"), origin)
                        // The git server is on loopback: an internal authority the origin's module sources lead to.
                        .set(
                                "upstream.hosts." + MirrorFixture.HOST.replace(".", "\\.") + ".downloadHosts",
                                List.of(git.url("x").getAuthority()))
                        .yaml());

        Command export = run(
                out -> new ExportCommand(out, Map.of()),
                "--config",
                outside.toString(),
                "--platform",
                String.join(",", PLATFORMS),
                "--dir",
                configuration("exported").toString(),
                "--output",
                bundle.toString());

        assertThat(export.exit()).as(export.output()).isZero();
        assertThat(export.output())
                .contains("export: cache directory " + tmp.resolve("outside").toAbsolutePath())
                .contains("export: modules: 4 fetched, 0 already cached, 0 failed")
                .contains("export: wrote " + bundle)
                .contains(CARRIED)
                .doesNotContain("warm:");
    }

    @Test
    @Order(2)
    void importIntoAnOfflineMirrorCountsWhatExportCountedAndASecondImportAddsNothing() throws Exception {
        Path config = Files.writeString(tmp.resolve("inside.yaml"), inside.yaml());

        Command first = run(out -> new ImportCommand(out, Map.of()), "--config", config.toString(), bundle.toString());
        assertThat(first.exit()).as(first.output()).isZero();
        assertThat(first.output())
                .contains("import: cache directory " + tmp.resolve("inside").toAbsolutePath())
                .contains(CARRIED + ", verified and cached; new here: 2 archive(s), 4 module version(s), "
                        + "5 version(s) added to version lists");

        Command second = run(out -> new ImportCommand(out, Map.of()), "--config", config.toString(), bundle.toString());
        assertThat(second.exit()).as(second.output()).isZero();
        assertThat(second.output()).contains(CARRIED + ", verified; nothing new: the cache held all of it already");
    }

    @Test
    @Order(3)
    void withTheOriginStoppedInitAndApplyGoThroughTheNetworkMirrorAndTheModulesFace() throws Exception {
        git.stop();
        origin.close();
        insideMirror = inside.start();
        TerraformCli cli = cli("network-mirror", """
                provider_installation {
                  network_mirror {
                    url = "https://localhost:%1$d/providers/"
                  }
                }
                host "%2$s" {
                  services = {
                    "modules.v1" = "https://localhost:%1$d/registry/%2$s/modules.v1/"
                  }
                }
                """);
        Path directory = configuration("through-network-mirror");

        TerraformCli.Result init = cli.run(directory, "init", "-input=false", "-no-color");
        assertThat(init.exitCode()).as(init.output()).isZero();
        assertThat(TerraformWorkspace.lockedHashes(directory))
                .as("through a network mirror the CLI locks the h1: of the installed package")
                .contains(h1("linux_amd64"));
        // ... and completes the lock file for the other platforms with `providers lock`, as the README says.
        TerraformCli.Result lock = cli.run(
                directory,
                "providers",
                "lock",
                "-no-color",
                "-net-mirror=https://localhost:" + insideMirror.mirror.port() + "/providers/",
                "-platform=linux_amd64",
                "-platform=darwin_arm64");
        assertThat(lock.exitCode()).as(lock.output()).isZero();
        for (String platform : PLATFORMS) {
            assertThat(TerraformWorkspace.lockedHashes(directory)).as(platform).contains(h1(platform));
        }

        applyAndCheckModules(cli, directory);
    }

    @Test
    @Order(4)
    void withTheOriginStoppedInitAndApplyGoThroughTheProvidersAndModulesFaces() throws Exception {
        TerraformCli cli = cli("faces", """
                host "%2$s" {
                  services = {
                    "providers.v1" = "https://localhost:%1$d/registry/%2$s/providers.v1/"
                    "modules.v1"   = "https://localhost:%1$d/registry/%2$s/modules.v1/"
                  }
                }
                """);
        Path directory = configuration("through-faces");

        TerraformCli.Result init = cli.run(directory, "init", "-input=false", "-no-color");
        assertThat(init.exitCode()).as(init.output()).isZero();
        assertThat(init.output())
                .doesNotContain("Incomplete lock file information")
                .as("the CLI checked the origin's signature itself")
                .contains("Installed example.test/acme/carried v1.0.0 (self-signed, key ID");
        assertThat(TerraformWorkspace.lockedHashes(directory))
                .as("zh: for the platforms in the bundle, and the h1: of the installed package")
                .isEqualTo(expectedHashes());

        applyAndCheckModules(cli, directory);
    }

    /**
     * {@code apply}, then the modules' outputs. The testkit's provider is not a runnable plugin, and {@code apply}
     * starts every provider the configuration requires, so the provider's requirement (installed and locked by
     * {@code init} above) is taken out first; the modules need no provider.
     */
    private static void applyAndCheckModules(TerraformCli cli, Path directory) throws Exception {
        Files.delete(directory.resolve("providers.tf"));
        TerraformCli.Result apply = cli.run(directory, "apply", "-auto-approve", "-input=false", "-no-color");
        assertThat(apply.exitCode()).as(apply.output()).isZero();
        assertThat(TerraformWorkspace.outputs(cli, directory)).containsAllEntriesOf(SampleModules.OUTPUTS);
    }

    /** What a direct install from the origin locks: {@code zh:} for every platform, the installed package's h1:. */
    private static Set<String> expectedHashes() throws Exception {
        Set<String> expected = new TreeSet<>();
        for (String platform : PLATFORMS) {
            expected.add("zh:" + release.sha256(platform));
        }
        expected.add(h1("linux_amd64"));
        return expected;
    }

    private static String h1(String platform) throws Exception {
        Path zip = Files.write(
                Files.createTempFile(tmp, platform, ".zip"), release.archives().get(platform));
        return PackageHashes.h1(zip);
    }

    /** A CLI with a clean home, {@code rc} (its {@code %1$d} the inside mirror's port, {@code %2$s} the host). */
    private static TerraformCli cli(String name, String rc) throws Exception {
        Path cliConfig = Files.writeString(
                tmp.resolve(name + ".rc"), rc.formatted(insideMirror.mirror.port(), MirrorFixture.HOST));
        return TerraformCli.using(
                        terraform,
                        Files.createDirectories(tmp.resolve("home-" + name)),
                        cliConfig,
                        insideMirror.mirror.generatedCaFile().orElseThrow())
                .withPath(noGitBin);
    }

    /**
     * The configuration: the provider at 1.0.0 (in providers.tf) and the four sample modules, each with a constraint
     * its newer decoy does not meet (in main.tf).
     */
    private static Path configuration(String name) throws Exception {
        StringBuilder calls = new StringBuilder();
        for (String[] call : List.of(
                new String[] {"tarball", "~> 1.0.0"},
                new String[] {"subdir", "1.0.0"},
                new String[] {"gitmod", "< 1.1.0"},
                new String[] {"gitsub", "2.0.0"})) {
            calls.append(TerraformWorkspace.moduleCall(
                    call[0], MirrorFixture.HOST + "/corp/" + call[0] + "/generic", call[1]));
        }
        return TerraformWorkspace.write(
                tmp.resolve(name),
                Map.of(
                        "providers.tf",
                        TerraformWorkspace.requiredProvider("carried", MirrorFixture.HOST + "/acme/carried", "1.0.0"),
                        "main.tf",
                        calls.toString()));
    }

    /** What a command printed, and its exit code. */
    private record Command(int exit, String output) {}

    /** Runs the command {@code make} builds around an output stream, as its user would, capturing what it printed. */
    private static Command run(Function<PrintStream, Object> make, String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = new CommandLine(make.apply(new PrintStream(bytes, true, StandardCharsets.UTF_8))).execute(args);
        return new Command(exit, bytes.toString(StandardCharsets.UTF_8));
    }
}
