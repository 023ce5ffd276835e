package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.GitHttpServer;
import io.providermirror.testkit.GitRepository;
import io.providermirror.testkit.SampleModules;
import io.providermirror.testkit.TerraformCli;
import io.providermirror.testkit.TerraformExtension;
import io.providermirror.testkit.TerraformWorkspace;
import java.io.File;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code terraform} CLI installs registry modules through the running mirror, routed there by the CLI's
 * {@code host} block, with a {@code PATH} that holds {@code terraform} and no {@code git}: sources that are a
 * tar.gz URL, a tar.gz with {@code //subdir}, a git tag and a git tag with {@code //subdir}, the git ones on a git
 * server over HTTPS on loopback. The tests run in order: they share the mirror's cache, and the last one stops
 * the origin and the git server.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class ModuleEndToEndIT {

    @RegisterExtension
    static final TerraformExtension endToEnd = new TerraformExtension();

    @TempDir
    static Path tmp;

    private static FakeOrigin origin;
    private static FakeModuleRegistry registry;
    private static GitHttpServer git;
    private static MirrorFixture mirror;
    private static TerraformCli cli;
    private static Path noGitBin;

    @BeforeAll
    static void start() throws Exception {
        Path terraform = endToEnd.binary().orElse(null);
        if (terraform == null) {
            return;
        }
        origin = endToEnd.closeAfterAll(FakeOrigin.start(tmp.resolve("origin")));
        registry = FakeModuleRegistry.of(origin);
        // The git server presents the origin's certificate, so the mirror trusts it as it trusts the origin.
        git = endToEnd.closeAfterAll(GitHttpServer.start(tmp.resolve("git"), origin.certificates()));
        mirror = endToEnd.closeAfterAll(MirrorFixture.builder(tmp.resolve("cache"), origin)
                .set("cache.indexTtl", "15m")
                // The git server is on loopback: an internal authority the origin's module sources may lead to.
                .set(
                        "upstream.hosts." + MirrorFixture.HOST.replace(".", "\\.") + ".downloadHosts",
                        List.of(git.url("x").getAuthority()))
                .start());
        Path cliConfig = Files.writeString(
                tmp.resolve("terraform.rc"),
                TerraformWorkspace.hostService(
                        MirrorFixture.HOST,
                        "modules.v1",
                        "https://localhost:" + mirror.mirror.port() + "/registry/" + MirrorFixture.HOST
                                + "/modules.v1/"));
        noGitBin = Files.createDirectories(tmp.resolve("bin"));
        Files.createSymbolicLink(noGitBin.resolve("terraform"), terraform.toAbsolutePath());
        cli = TerraformCli.using(
                        terraform,
                        Files.createDirectories(tmp.resolve("home")),
                        cliConfig,
                        mirror.mirror.generatedCaFile().orElseThrow())
                .withPath(noGitBin);
    }

    @Test
    @Order(1)
    void thePathHoldsTerraformAndNoGit() {
        assertThat(resolvable("terraform", noGitBin.toString())).isTrue();
        assertThat(resolvable("git", noGitBin.toString()))
                .as("git on the CLI's PATH")
                .isFalse();
    }

    @Test
    @Order(2)
    void initAndApplyInstallArchiveAndGitModulesWithoutGit() throws Exception {
        SampleModules.publish(registry, git, "0.9.0");
        initAndApplyTheSampleModules("first");
        assertThat(registry.archiveDownloads("/archives/tarball-1.0.0.tar.gz")).isEqualTo(1);
        assertThat(registry.archiveDownloads("/archives/subdir-1.0.0.tar.gz")).isEqualTo(1);
        assertThat(git.paths()).anyMatch(path -> path.startsWith("/gitmod.git/"));
        assertThat(git.paths()).anyMatch(path -> path.startsWith("/gitsub.git/"));
    }

    @Test
    @Order(3)
    void aTagMovedBeforeTheMirrorFirstFetchedItsVersionIsTakenAsFound() throws Exception {
        GitRepository repository = git.createRepository("early");
        String planned = repository.commit(SampleModules.module("early", "planned"), "planned");
        repository.tag("v1.0.0", planned, true);
        registry.publish("corp", "early", "generic", "1.0.0", "git::" + repository.url() + "?ref=v1.0.0");
        repository.moveTag("v1.0.0", repository.commit(SampleModules.module("early", "moved"), "moved"));
        Path directory = single("early", "corp/early/generic", "1.0.0");

        TerraformCli.Result init = cli.run(directory, "init", "-input=false", "-no-color");
        assertThat(init.exitCode()).as(init.output()).isZero();
        TerraformCli.Result apply = cli.run(directory, "apply", "-auto-approve", "-input=false", "-no-color");
        assertThat(apply.exitCode()).as(apply.output()).isZero();

        assertThat(outputs(directory)).containsEntry("early", "early moved root");
    }

    @Test
    @Order(4)
    void aTagMovedAfterItsVersionWasPinnedIsRefusedWhenTheArchiveIsFetchedAgain() throws Exception {
        GitRepository repository = git.createRepository("pinned");
        String first = repository.commit(SampleModules.module("pinned", "first"), "first");
        repository.tag("v3.0.0", first, false);
        registry.publish("corp", "pinned", "generic", "3.0.0", "git::" + repository.url() + "?ref=v3.0.0");
        Path before = single("pinned-before", "corp/pinned/generic", "3.0.0");
        TerraformCli.Result init = cli.run(before, "init", "-input=false", "-no-color");
        assertThat(init.exitCode()).as(init.output()).isZero();

        // The tag moves at the origin; the mirror loses its archive (eviction, a wiped disk) but keeps its pins.
        repository.moveTag("v3.0.0", repository.commit(SampleModules.module("pinned", "second"), "second"));
        int deleted = deleteCachedArchive("corp/pinned/generic/3.0.0");
        assertThat(deleted).as("cached archive files removed").isPositive();

        Path after = single("pinned-after", "corp/pinned/generic", "3.0.0");
        TerraformCli.Result again = cli.run(after, "init", "-input=false", "-no-color");
        assertThat(again.exitCode()).as(again.output()).isNotZero();
        assertThat(again.output()).contains("pinned");
        assertThat(after.resolve(".terraform/modules/pinned/main.tf")).doesNotExist();
        assertThat(refusal("corp/pinned/generic/3.0.0").toLowerCase(Locale.ROOT))
                .contains("pin");
    }

    @Test
    @Order(5)
    void withTheOriginAndTheGitServerStoppedAFreshInitIsServedFromTheCache() throws Exception {
        int registryRequests = registry.registryRequests();
        git.stop();
        origin.close();
        initAndApplyTheSampleModules("offline");
        assertThat(registryRequests).isPositive();
    }

    /**
     * {@code init} and {@code apply} of a configuration calling the four sample modules at 1.0.0 (gitsub at 2.0.0;
     * their decoys at other versions), and the outputs that prove the sources and versions installed.
     */
    private static void initAndApplyTheSampleModules(String directoryName) throws Exception {
        StringBuilder calls = new StringBuilder();
        for (String name : SampleModules.NAMES) {
            calls.append(call(name, "corp/" + name + "/generic", name.equals("gitsub") ? "2.0.0" : "1.0.0"));
        }
        Path directory = TerraformWorkspace.write(tmp.resolve(directoryName), Map.of("main.tf", calls.toString()));

        TerraformCli.Result init = cli.run(directory, "init", "-input=false", "-no-color");
        assertThat(init.exitCode()).as(init.output()).isZero();
        TerraformCli.Result apply = cli.run(directory, "apply", "-auto-approve", "-input=false", "-no-color");
        assertThat(apply.exitCode()).as(apply.output()).isZero();

        assertThat(outputs(directory)).containsAllEntriesOf(SampleModules.OUTPUTS);
    }

    private static Path single(String directoryName, String module, String version) throws Exception {
        Path directory = Files.createDirectories(tmp.resolve(directoryName));
        String name = module.split("/")[1];
        Files.writeString(directory.resolve("main.tf"), call(name, module, version));
        return directory;
    }

    private static String call(String name, String module, String version) {
        return TerraformWorkspace.moduleCall(name, MirrorFixture.HOST + "/" + module, version);
    }

    private static Map<String, String> outputs(Path directory) throws Exception {
        return TerraformWorkspace.outputs(cli, directory);
    }

    private static boolean resolvable(String command, String path) {
        return Stream.of(path.split(File.pathSeparator))
                .map(directory -> Path.of(directory, command))
                .anyMatch(Files::isExecutable);
    }

    /** The mirror's answer for the archive its download points the CLI at, or the download's answer if not 204. */
    private static HttpResponse<byte[]> archiveOnMirror(String moduleVersion) throws Exception {
        HttpResponse<byte[]> download =
                mirror.get("/registry/" + MirrorFixture.HOST + "/modules.v1/" + moduleVersion + "/download");
        if (download.statusCode() != 204) {
            return download;
        }
        String location = download.headers().firstValue("X-Terraform-Get").orElseThrow();
        URI url = URI.create(location.replaceFirst("^(https://[^/]+/[^?]*?)//[^?]*", "$1"));
        return mirror.get(url.getRawPath());
    }

    /** Deletes every file in the mirror's cache holding the bytes of the version's archive; returns how many. */
    private static int deleteCachedArchive(String moduleVersion) throws Exception {
        HttpResponse<byte[]> archive = archiveOnMirror(moduleVersion);
        assertThat(archive.statusCode()).isEqualTo(200);
        String sha256 = FakeOrigin.hex(archive.body());
        List<Path> copies = new ArrayList<>();
        try (Stream<Path> files = Files.walk(mirror.cacheDirectory)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                if (Files.size(file) == archive.body().length
                        && FakeOrigin.hex(Files.readAllBytes(file)).equals(sha256)) {
                    copies.add(file);
                }
            }
        }
        for (Path copy : copies) {
            Files.delete(copy);
        }
        // Lost as an eviction loses it: the store also lets go of what it holds of it (a small archive is held in
        // memory once served from the cache, and served from there whatever becomes of its file meanwhile).
        for (var blob : mirror.mirror.core().blobs().list()) {
            if (blob.key().toString().contains(moduleVersion)) {
                mirror.mirror.core().blobs().remove(blob.key());
            }
        }
        return copies.size();
    }

    /** The mirror's JSON error for the version's download or archive, whichever refused. */
    private static String refusal(String moduleVersion) throws Exception {
        HttpResponse<byte[]> answer = archiveOnMirror(moduleVersion);
        assertThat(answer.statusCode()).as("the mirror refuses the moved tag").isGreaterThanOrEqualTo(400);
        return MirrorFixture.error(answer) + " " + new String(answer.body(), StandardCharsets.UTF_8);
    }
}
