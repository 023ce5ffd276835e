package io.providermirror.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Arguments that only start the mirror are read without picocli, as picocli reads them; anything else, and anything
 * picocli would refuse, is left to the full command line.
 */
final class MainTest {

    @Test
    void argumentsThatOnlyStartTheMirrorAreReadWithoutPicocliAndEverythingElseIsLeftToIt() {
        assertThat(serve()).contains(new ServeArguments(Optional.empty(), false));
        assertThat(serve("--config", "m.yaml", "--verify-cache"))
                .contains(new ServeArguments(Optional.of(Path.of("m.yaml")), true));
        assertThat(serve("--verify-cache", "--config=m.yaml"))
                .contains(new ServeArguments(Optional.of(Path.of("m.yaml")), true));

        for (List<String> other : List.of(
                List.of("warm", "--mirror", "https://m/"),
                List.of("--help"),
                List.of("-h"),
                List.of("--version"),
                List.of("healthcheck"),
                List.of("wram"),
                List.of("--config"),
                List.of("--config="),
                List.of("--config", "warm"),
                List.of("--config=warm"),
                List.of("--config", "--verify-cache"),
                List.of("--config", "a.yaml", "--config", "b.yaml"),
                List.of("--config=a.yaml", "--config", "b.yaml"),
                List.of("--verify-cache", "--verify-cache"),
                List.of("@arguments.txt"),
                List.of("--config", "@arguments.txt"),
                List.of("--config=@arguments.txt"),
                List.of("--"),
                List.of("--config", "nul\u0000.yaml"),
                List.of("--verify-cache", "export"))) {
            assertThat(serve(other.toArray(String[]::new))).as("%s", other).isEmpty();
        }
    }

    @Test
    void picocliReadsWhatTheShortcutReadsAlikeAndRefusesWhatItLeavesToIt() {
        for (String[] args : List.of(
                new String[] {},
                new String[] {"--config", "mirror.yaml", "--verify-cache"},
                new String[] {"--verify-cache", "--config=mirror.yaml"},
                new String[] {"--config=mirror.yaml"})) {
            ServeArguments shortcut = serve(args).orElseThrow();
            CommandLine.ParseResult result = Main.commandLine().parseArgs(args);
            assertThat(result.hasSubcommand()).as("%s", List.of(args)).isFalse();
            assertThat(Optional.ofNullable(result.matchedOptionValue("--config", (Path) null)))
                    .isEqualTo(shortcut.config());
            assertThat(result.hasMatchedOption("--verify-cache")).isEqualTo(shortcut.verifyCache());
        }
        for (String[] args : List.of(
                new String[] {"--config", "a.yaml", "--config", "b.yaml"},
                new String[] {"--verify-cache", "--verify-cache"},
                new String[] {"--config"})) {
            assertThatThrownBy(() -> Main.commandLine().parseArgs(args))
                    .as("%s", List.of(args))
                    .isInstanceOf(CommandLine.ParameterException.class);
        }
    }

    @Test
    void aPicocliSettingLeavesEveryArgumentToPicocli() {
        String[] args = {"--config", "\"my mirror.yaml\""};
        assertThat(serve(args)).contains(new ServeArguments(Optional.of(Path.of("\"my mirror.yaml\"")), false));
        System.setProperty("picocli.trimQuotes", "true");
        try {
            assertThat(Main.commandLine().parseArgs(args).matchedOptionValue("--config", (Path) null))
                    .as("picocli reads the value otherwise")
                    .isEqualTo(Path.of("my mirror.yaml"));
            assertThat(serve(args)).isEmpty();
            assertThat(serve()).isEmpty();
        } finally {
            System.clearProperty("picocli.trimQuotes");
        }
    }

    private static Optional<ServeArguments> serve(String... args) {
        return ServeArguments.parse(args, Main.COMMAND_NAMES);
    }

    @Test
    void theFullCommandLineHasEveryCommandInTheHelpsOrderAndTheServingOneNone() {
        CommandLine full = Main.commandLine();
        assertThat(full.getSubcommands().keySet())
                .containsExactly(
                        "warm",
                        "export",
                        "import",
                        "modules",
                        "purge",
                        "retention",
                        "log",
                        "inventory",
                        "hash-token",
                        "healthcheck");
        assertThat(Main.COMMAND_NAMES)
                .containsExactlyInAnyOrderElementsOf(full.getSubcommands().keySet());
        assertThat(full.getUsageMessage()).contains("warm", "hash-token", "healthcheck");
    }
}
