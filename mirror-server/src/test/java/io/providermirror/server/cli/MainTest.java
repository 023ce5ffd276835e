package io.providermirror.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The command line without its commands, used when the arguments only start the mirror, parses those
 * arguments exactly as the full one does; anything else gets the full one.
 */
final class MainTest {

    @Test
    void argumentsThatOnlyStartTheMirrorAreToldApartFromEverythingElse() {
        assertThat(Main.serverOptionsOnly(new String[] {})).isTrue();
        assertThat(Main.serverOptionsOnly(new String[] {"--config", "m.yaml", "--verify-cache"}))
                .isTrue();
        assertThat(Main.serverOptionsOnly(new String[] {"--config=m.yaml"})).isTrue();

        for (List<String> other : List.of(
                List.of("warm", "--mirror", "https://m/"),
                List.of("--help"),
                List.of("-h"),
                List.of("--version"),
                List.of("healthcheck"),
                List.of("wram"),
                List.of("--config"),
                List.of("--config", "warm"),
                List.of("--config", "--verify-cache"),
                List.of("--verify-cache", "export"))) {
            assertThat(Main.serverOptionsOnly(other.toArray(String[]::new)))
                    .as("%s", other)
                    .isFalse();
        }
    }

    @Test
    void theFullCommandLineHasEveryCommandInTheHelpsOrderAndTheServingOneNone() {
        CommandLine full = Main.commandLine(false);
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
        assertThat(Main.commandLine(true).getSubcommands()).isEmpty();
    }

    @Test
    void bothParseTheServingArgumentsAlike() {
        String[] args = {"--config", "mirror.yaml", "--verify-cache"};
        for (boolean serves : new boolean[] {true, false}) {
            CommandLine.ParseResult result = Main.commandLine(serves).parseArgs(args);
            assertThat(result.hasSubcommand()).isFalse();
            assertThat(result.matchedOptionValue("--config", (Object) null)).hasToString("mirror.yaml");
            assertThat(result.hasMatchedOption("--verify-cache")).isTrue();
        }
    }
}
