package io.providermirror.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Real programs the operations tests drive (Chromium, Prometheus, promtool, systemd-analyze), found on PATH.
 * A test that needs one that is missing is skipped with a loud reason; {@code .ci/run} installs them.
 */
public final class ExternalTools {

    /** What a command printed and how it ended. */
    public record Result(int exitCode, String output) {}

    private ExternalTools() {}

    /** The first of {@code names} on PATH, or a skipped test that says how to get it. */
    public static Path locateOrSkip(String debianPackage, String... names) {
        Optional<Path> found = locate(names);
        if (found.isEmpty()) {
            String reason = "SKIPPED: no " + String.join(" or ", names) + " on PATH. Run .ci/run, or: apt-get install "
                    + debianPackage;
            System.err.println("\n!!!!!!!! " + reason + "\n");
            Assumptions.abort(reason);
        }
        return found.get();
    }

    /** The first of {@code names} on PATH, if any. */
    public static Optional<Path> locate(String... names) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String name : names) {
            for (String directory : path.split(java.io.File.pathSeparator)) {
                Path candidate = Path.of(directory, name);
                if (Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }

    /** Runs a command to its end (at most {@code timeoutSeconds}), stdout and stderr together. */
    public static Result run(long timeoutSeconds, Path program, String... arguments)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(program.toString());
        command.addAll(List.of(arguments));
        Path output = Files.createTempFile("external-tool", ".out");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(
                        String.join(" ", command) + " did not finish in " + timeoutSeconds + " s");
            }
            return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
