package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packaged {@code mirror-server.jar} running in its own JVM, as users run it: started with a
 * configuration file and environment, its port read from the start-up banner, its log in a file.
 */
final class PackagedMirror implements AutoCloseable {

    private static final Pattern SERVING = Pattern.compile("is serving on [^:]+:(\\d+)");

    private final Process process;
    private final int port;
    private final Path log;

    private PackagedMirror(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** The jar that {@code mvn package} built, which the integration tests run. */
    static Path jar() {
        Path jar = Path.of("target", "mirror-server.jar");
        assertThat(jar)
                .as("mvn package builds the jar before integration tests run")
                .exists();
        return jar;
    }

    /**
     * {@code java <jvmArgs> -jar mirror-server.jar <args>} with {@code environment} added; stderr goes to {@code log}.
     * Its temporary directory is the log's (the test's own): what a mirror killed during its start-up rehearsal leaves
     * goes with the test's files.
     */
    static ProcessBuilder command(Path log, Map<String, String> environment, List<String> args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-Djava.io.tmpdir=" + log.toAbsolutePath().getParent(),
                "-jar",
                jar().toString()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(log.toFile());
        builder.environment().putAll(environment);
        return builder;
    }

    /** Starts the mirror with {@code config} and waits until it announces its port. */
    static PackagedMirror start(Path config, Path log, Map<String, String> environment) throws Exception {
        Process process = command(log, environment, List.of("--config", config.toString()))
                .start();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        // A thread of its own reads the banner and then drains stdout until the process ends: on a shared
        // pool, a blocked read could starve the next process's reader.
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader out = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = out.readLine()) != null) {
                            Matcher m = SERVING.matcher(line);
                            if (!port.isDone() && m.find()) {
                                port.complete(Integer.parseInt(m.group(1)));
                            }
                        }
                        port.completeExceptionally(
                                new IllegalStateException("the mirror exited before serving; see " + log));
                    } catch (IOException e) {
                        port.completeExceptionally(e);
                    }
                },
                "packaged-mirror-stdout");
        reader.setDaemon(true);
        reader.start();
        try {
            return new PackagedMirror(process, port.get(60, TimeUnit.SECONDS), log);
        } catch (Exception e) {
            process.destroyForcibly();
            throw e;
        }
    }

    Process process() {
        return process;
    }

    int port() {
        return port;
    }

    Path log() {
        return log;
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException interrupted) {
            // close() must not throw InterruptedException (try-with-resources); the flag carries it on.
            Thread.currentThread().interrupt();
        }
    }
}
