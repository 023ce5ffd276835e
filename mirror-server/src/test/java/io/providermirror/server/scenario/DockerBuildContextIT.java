package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.ExternalTools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Dockerfile's build stage works with what it copies: exactly the files its {@code COPY} lines bring into
 * the image are copied into an empty directory, and its {@code RUN} Maven command is run there (no Docker
 * engine runs here; this reproduces its build context). A module the root {@code pom.xml} lists but the
 * Dockerfile does not copy fails here, not in a user's {@code docker build}.
 */
final class DockerBuildContextIT {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path DOCKERFILE = ROOT.resolve("deploy/Dockerfile");

    @TempDir
    Path context;

    @Test
    @Timeout(600)
    void theBuildStageBuildsTheJarTheRuntimeStageCopiesFromOnlyWhatItCopies() throws Exception {
        Path mvn = ExternalTools.locateOrSkip("maven", "mvn");
        List<String> stage = buildStage(Files.readAllLines(DOCKERFILE, StandardCharsets.UTF_8));
        String workdir = stage.stream()
                .filter(l -> l.startsWith("WORKDIR "))
                .map(l -> l.substring(8).trim())
                .findFirst()
                .orElseThrow(() -> new AssertionError("the build stage has no WORKDIR"));
        List<String> run = null;
        for (String line : stage) {
            if (line.startsWith("COPY ")) {
                copy(line.substring(5).trim().split("\\s+"));
            } else if (line.startsWith("RUN ")) {
                run = List.of(line.substring(4).trim().split("\\s+"));
            }
        }
        assertThat(run).as("the build stage's RUN command").isNotNull().first().isEqualTo("mvn");

        List<String> arguments = new ArrayList<>(run.subList(1, run.size()));
        ExternalTools.Result result = ExternalTools.run(540, mvn, withDirectory(arguments));

        assertThat(result.exitCode())
                .as("mvn %s in a copy of the build context:%n%s", arguments, tail(result.output()))
                .isZero();
        String jarInImage = runtimeCopySource(Files.readAllLines(DOCKERFILE, StandardCharsets.UTF_8));
        assertThat(jarInImage).startsWith(workdir + "/");
        assertThat(context.resolve(jarInImage.substring(workdir.length() + 1))).isRegularFile();
    }

    private String[] withDirectory(List<String> arguments) {
        List<String> all =
                new ArrayList<>(List.of("-f", context.resolve("pom.xml").toString()));
        // The local repository of the build that runs this test (the pom passes it), offline: that build has just
        // packaged the same modules, so it holds every plugin and dependency the build stage needs, and a build run
        // offline after `mvn install -DskipTests` needs no network here either.
        String repository = System.getProperty("build.localRepository", "");
        if (!repository.isBlank()) {
            all.add("-Dmaven.repo.local=" + repository);
            all.add("-o");
        }
        all.addAll(arguments);
        return all.toArray(String[]::new);
    }

    /** The lines of the first stage: from the first {@code FROM} up to the next one, continuations joined. */
    private static List<String> buildStage(List<String> lines) {
        List<String> joined = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : lines) {
            String trimmed = line.strip();
            if (trimmed.startsWith("#") || trimmed.isEmpty()) {
                continue;
            }
            if (trimmed.endsWith("\\")) {
                current.append(trimmed, 0, trimmed.length() - 1).append(' ');
                continue;
            }
            joined.add(current.append(trimmed).toString());
            current.setLength(0);
        }
        List<String> stage = new ArrayList<>();
        boolean inFirst = false;
        for (String line : joined) {
            if (line.startsWith("FROM ")) {
                if (inFirst) {
                    break;
                }
                inFirst = true;
            } else if (inFirst) {
                stage.add(line);
            }
        }
        return stage;
    }

    /** The path the runtime stage copies from the build stage ({@code COPY --from=build <path> <dest>}). */
    private static String runtimeCopySource(List<String> lines) {
        return lines.stream()
                .map(String::strip)
                .filter(l -> l.startsWith("COPY --from="))
                .map(l -> l.split("\\s+")[2])
                .findFirst()
                .orElseThrow(() -> new AssertionError("the runtime stage copies nothing from the build stage"));
    }

    /**
     * {@code COPY <src>... <dest>} as Docker does it: a directory's contents go into {@code dest}; a file goes into
     * {@code dest} when it ends in {@code /}, else becomes {@code dest}.
     */
    private void copy(String[] words) throws IOException {
        String destination = words[words.length - 1];
        for (String source : Arrays.copyOf(words, words.length - 1)) {
            Path from = ROOT.resolve(source).normalize();
            assertThat(from)
                    .as("COPY %s: no such file in the repository", source)
                    .exists();
            Path to = context.resolve(destination).normalize();
            if (Files.isRegularFile(from) && destination.endsWith("/")) {
                to = to.resolve(from.getFileName().toString());
            }
            copyTree(from, to);
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        if (Files.isRegularFile(from)) {
            Files.createDirectories(to.getParent());
            Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
            return;
        }
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path relative = from.relativize(file);
                if (relative.toString().startsWith("target")) {
                    continue;
                }
                Path target = to.resolve(relative.toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    private static String tail(String output) {
        String[] lines = output.split("\n");
        return String.join("\n", Arrays.copyOfRange(lines, Math.max(0, lines.length - 40), lines.length));
    }
}
