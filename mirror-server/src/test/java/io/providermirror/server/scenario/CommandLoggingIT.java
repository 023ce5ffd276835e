package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar's commands print for people: their log shows warnings only unless {@code --verbose}, also
 * when the start-up preload is still initialising logging on its own thread as the command begins.
 */
final class CommandLoggingIT {

    @TempDir
    Path tmp;

    @Test
    void warmExportAndImportLogNoInfoLinesUnlessVerbose() throws Exception {
        Path config = Files.writeString(
                tmp.resolve("mirror.yaml"),
                "cache: {directory: '" + tmp.resolve("cache") + "'}\nupstream: {offline: true}\n");
        Path notABundle = Files.write(tmp.resolve("not-a-bundle.tar"), new byte[4096]);
        Map<String, List<String>> commands = Map.of(
                "warm", List.of("warm", "--config", config.toString(), "--platform", "linux_amd64", "acme/absent"),
                "export",
                        List.of(
                                "export",
                                "--config",
                                config.toString(),
                                "--platform",
                                "linux_amd64",
                                "--output",
                                tmp.resolve("out.tar").toString(),
                                "acme/absent"),
                "import", List.of("import", "--config", config.toString(), notABundle.toString()));
        for (Map.Entry<String, List<String>> command : commands.entrySet()) {
            String quiet = stderr(command.getValue());
            assertThat(quiet).as(command.getKey()).doesNotContain(" INFO ");
            List<String> verbose = new ArrayList<>(command.getValue());
            verbose.add(1, "--verbose");
            assertThat(stderr(verbose)).as(command.getKey() + " --verbose").contains(" INFO ");
        }
    }

    /** What {@code java -jar mirror-server.jar <args>} wrote to stderr (its log). */
    private String stderr(List<String> args) throws Exception {
        Path log = Files.createTempFile(tmp, "stderr", ".log");
        Process process = PackagedMirror.command(log, Map.of(), args)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS))
                .as(String.join(" ", args) + " ended")
                .isTrue();
        return Files.readString(log, StandardCharsets.UTF_8);
    }
}
