package io.providermirror.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Every command that works on a cache directory names it, and none invents one: without {@code --config} (or
 * {@code cache.directory} in the environment) the default {@code ./mirror-data} must exist, or the command says so
 * and creates nothing, instead of reporting success on an empty cache beside the user.
 */
final class CommandCacheTest {

    /** The default cache directory, relative to where the command runs (here: the test's working directory). */
    private static final Path DEFAULT = Path.of("mirror-data").toAbsolutePath();

    @TempDir
    Path tmp;

    /** The commands set the root logger to WARN, as for people; other tests in this JVM expect it as it was. */
    private final ch.qos.logback.classic.Level rootLevel = root().getLevel();

    private static ch.qos.logback.classic.Logger root() {
        return (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    @AfterEach
    void restoreLogging() {
        root().setLevel(rootLevel);
    }

    private record Run(int exit, String output) {}

    private static Run run(Function<PrintStream, Object> make, String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = new CommandLine(make.apply(new PrintStream(bytes, true, StandardCharsets.UTF_8))).execute(args);
        return new Run(exit, bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void withoutConfigAndWithoutACacheDirectoryEveryCommandSaysSoAndCreatesNothing() throws Exception {
        Assumptions.assumeFalse(Files.exists(DEFAULT), DEFAULT + " exists where the tests run");
        Path bundle = Files.writeString(tmp.resolve("bundle.tar"), "not read");
        Map<String, Run> runs = Map.of(
                "import",
                run(out -> new ImportCommand(out, Map.of()), bundle.toString()),
                "export",
                run(
                        out -> new ExportCommand(out, Map.of()),
                        "--platform",
                        "linux_amd64",
                        "--output",
                        tmp.resolve("out.tar").toString(),
                        "example.test/acme/x"),
                "warm",
                run(out -> new WarmCommand(out, Map.of(), c -> c), "--platform", "linux_amd64", "example.test/acme/x"),
                "modules accept",
                run(out -> new ModulesCommand.Accept(out, Map.of()), "example.test/corp/net/aws", "1.0.0"));

        runs.forEach((command, run) -> {
            assertThat(run.exit()).as(command + ": " + run.output()).isEqualTo(2);
            assertThat(run.output())
                    .as(command)
                    .startsWith(command + ": no --config was given, and there is no cache directory at " + DEFAULT)
                    .contains("cache.directory")
                    .contains("nothing was created");
        });
        assertThat(DEFAULT).doesNotExist();
        assertThat(tmp.resolve("out.tar")).doesNotExist();
    }

    @Test
    void everyCommandNamesTheCacheDirectoryItWorksOn() throws Exception {
        Path cache = tmp.resolve("cache");
        Path config = Files.writeString(
                tmp.resolve("mirror.yaml"), "cache: {directory: '" + cache + "'}\nupstream: {offline: true}\n");
        String line = ": cache directory " + cache.toAbsolutePath();

        Run accept = run(
                out -> new ModulesCommand.Accept(out, Map.of()),
                "--config",
                config.toString(),
                "example.test/corp/net/aws",
                "1.0.0");
        assertThat(accept.exit()).as(accept.output()).isEqualTo(1);
        assertThat(accept.output()).startsWith("modules accept" + line);

        Run warm = run(
                out -> new WarmCommand(out, Map.of(), c -> c),
                "--config",
                config.toString(),
                "--platform",
                "linux_amd64",
                "example.test/acme/x");
        assertThat(warm.output()).startsWith("warm" + line);

        Run export = run(
                out -> new ExportCommand(out, Map.of()),
                "--config",
                config.toString(),
                "--platform",
                "linux_amd64",
                "--output",
                tmp.resolve("out.tar").toString(),
                "example.test/acme/x");
        assertThat(export.output()).startsWith("export" + line);
        assertThat(export.output()).doesNotContain("warm:");

        // cache.directory from the environment chooses a directory as --config does, the container image's way.
        Path fromEnvironment = tmp.resolve("from-environment");
        Run accepted = run(
                out -> new ModulesCommand.Accept(
                        out, Map.of("PROVIDER_MIRROR_CACHE_DIRECTORY", fromEnvironment.toString())),
                "example.test/corp/net/aws",
                "1.0.0");
        assertThat(accepted.output()).startsWith("modules accept: cache directory " + fromEnvironment.toAbsolutePath());
        assertThat(List.of(accepted.exit())).containsExactly(1);
    }
}
