package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.ExternalTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution archive the build makes, {@code target/provider-mirror-<version>.tar.gz}, unpacked as an
 * operator would: its {@code bin/provider-mirror}, the command every message and the README name, runs the jar
 * beside it, called directly and through a symbolic link on the PATH (as the image installs it).
 */
final class DistributionArchiveIT {

    @TempDir
    Path tmp;

    @Test
    void theLauncherInTheArchiveRunsTheMirrorsJarDirectlyAndThroughALink() throws Exception {
        Path tar = ExternalTools.locateOrSkip("tar", "tar");
        List<Path> archives;
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            archives = files.filter(f -> f.getFileName().toString().matches("provider-mirror-.+\\.tar\\.gz"))
                    .toList();
        }
        assertThat(archives).as("the package phase's distribution archive").hasSize(1);
        String name = archives.get(0).getFileName().toString();
        String version = name.substring("provider-mirror-".length(), name.length() - ".tar.gz".length());

        ExternalTools.Result unpacked = ExternalTools.run(
                60, tar, "-xzf", archives.get(0).toAbsolutePath().toString(), "-C", tmp.toString());
        assertThat(unpacked.exitCode()).as(unpacked.output()).isZero();
        Path home = tmp.resolve("provider-mirror-" + version);
        assertThat(home.resolve("lib/mirror-server.jar")).isRegularFile();
        assertThat(home.resolve("mirror.example.yaml")).isRegularFile();
        Path launcher = home.resolve("bin/provider-mirror");
        assertThat(launcher).isExecutable();

        ExternalTools.Result direct = ExternalTools.run(60, launcher, "--version");
        assertThat(direct.exitCode()).as(direct.output()).isZero();
        assertThat(direct.output().strip()).isEqualTo("provider-mirror " + version);

        Path onPath = Files.createSymbolicLink(
                Files.createDirectories(tmp.resolve("usr/local/bin")).resolve("provider-mirror"), launcher);
        ExternalTools.Result linked = ExternalTools.run(60, onPath, "--version");
        assertThat(linked.exitCode()).as(linked.output()).isZero();
        assertThat(linked.output().strip()).isEqualTo("provider-mirror " + version);
    }
}
