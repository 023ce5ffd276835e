package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar logs text lines with its built-in configuration (built in code, no logback XML), and the
 * start-up preload initialising logging on its own thread holds nothing back: no SLF4J replay warning.
 */
final class ServerLoggingIT {

    private static final String TEXT_LINE = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) "
            + "(INFO |WARN |ERROR) \\[[^\\]]+\\] [A-Za-z0-9$]+ - .*";

    @TempDir
    Path tmp;

    @Test
    void theServerWritesTextLinesAndNoReplayWarning() throws Exception {
        Path config = Files.writeString(tmp.resolve("mirror.yaml"), """
                server: {host: 127.0.0.1, port: 0}
                cache: {directory: '%s'}
                upstream: {offline: true}
                """.formatted(tmp.resolve("cache")));
        try (PackagedMirror mirror = PackagedMirror.start(config, tmp.resolve("mirror.log"), Map.of())) {
            assertThat(mirror.port()).isPositive();
        }
        List<String> lines = Files.readAllLines(tmp.resolve("mirror.log")).stream()
                .filter(line -> !line.isBlank())
                .toList();
        assertThat(lines).anyMatch(line -> line.matches(".* INFO  \\[main\\] FileBlobStore - archive cache: .*"));
        assertThat(lines).as("every line is a log line of the text format").allMatch(line -> line.matches(TEXT_LINE));
    }
}
