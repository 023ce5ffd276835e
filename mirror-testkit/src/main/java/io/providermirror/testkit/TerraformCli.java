package io.providermirror.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The real {@code terraform} binary: from PATH, else {@code TERRAFORM_BIN}. When neither has one the test is
 * skipped with a loud reason ({@code .ci/run} unpacks {@code ../shared/tools/terraform.xz} and sets
 * {@code TERRAFORM_BIN}, so CI always has one).
 */
public final class TerraformCli {

    /** The outcome of one command. */
    public record Result(int exitCode, String output) {}

    private final Path binary;
    private final Map<String, String> environment;

    private TerraformCli(Path binary, Map<String, String> environment) {
        this.binary = binary;
        this.environment = environment;
    }

    /** The binary, or a skipped test that says why. */
    public static Path locateOrSkip() {
        Optional<Path> found = locate();
        if (found.isEmpty()) {
            String reason = "SKIPPED: no terraform binary: none on PATH and TERRAFORM_BIN is not set to an executable. "
                    + "Run .ci/run, or: xz -dc ../shared/tools/terraform.xz > target/terraform && chmod +x target/terraform "
                    + "&& export TERRAFORM_BIN=$PWD/target/terraform";
            System.err.println("\n!!!!!!!! " + reason + "\n");
            Assumptions.abort(reason);
        }
        return found.get();
    }

    /** The binary from PATH, else from {@code TERRAFORM_BIN}, if either has one. */
    public static Optional<Path> locate() {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String directory : path.split(java.io.File.pathSeparator)) {
                Path candidate = Path.of(directory, "terraform");
                if (Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        String explicit = System.getenv("TERRAFORM_BIN");
        if (explicit != null && !explicit.isBlank() && Files.isExecutable(Path.of(explicit))) {
            return Optional.of(Path.of(explicit));
        }
        return Optional.empty();
    }

    /** A CLI that uses {@code cliConfig} and trusts {@code caFile}, with a clean home directory. */
    public static TerraformCli using(Path binary, Path home, Path cliConfig, Path caFile) {
        return new TerraformCli(
                binary,
                Map.of(
                        "HOME", home.toString(),
                        "TF_CLI_CONFIG_FILE", cliConfig.toString(),
                        "SSL_CERT_FILE", caFile.toString(),
                        "CHECKPOINT_DISABLE", "1",
                        "TF_IN_AUTOMATION", "1"));
    }

    /** The same CLI with {@code PATH} set to {@code path} only (e.g. a directory holding terraform and no git). */
    public TerraformCli withPath(Path path) {
        Map<String, String> changed = new java.util.HashMap<>(environment);
        changed.put("PATH", path.toString());
        return new TerraformCli(binary, Map.copyOf(changed));
    }

    /** Runs {@code terraform <arguments>} in {@code workingDirectory} to its end (at most 3 minutes). */
    public Result run(Path workingDirectory, String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        command.addAll(List.of(arguments));
        ProcessBuilder builder =
                new ProcessBuilder(command).directory(workingDirectory.toFile()).redirectErrorStream(true);
        builder.environment().keySet().removeIf(k -> k.startsWith("TF_") || k.equals("SSL_CERT_DIR"));
        builder.environment().putAll(environment);
        Process process = builder.start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(3, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException("terraform " + String.join(" ", arguments) + " did not finish");
        }
        return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }
}
