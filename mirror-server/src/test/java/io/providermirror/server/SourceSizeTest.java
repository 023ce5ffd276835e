package io.providermirror.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Size limits that keep the code easy to change, checked on the sources of every module: no main class grows past
 * 400 lines (split it by job instead), and the server's root package stays nearly empty (a class belongs to the
 * sub-package of its role).
 */
final class SourceSizeTest {

    private static final int MAX_LINES = 400;
    private static final int MAX_ROOT_CLASSES = 8;
    /** The project's root, seen from mirror-server, where the tests run. */
    private static final Path PROJECT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void noMainSourceFileIsLongerThan400Lines() throws IOException {
        List<String> tooLong = new ArrayList<>();
        List<Path> sources = mainSources();
        for (Path source : sources) {
            long lines;
            try (Stream<String> all = Files.lines(source)) {
                lines = all.count();
            }
            if (lines > MAX_LINES) {
                tooLong.add(PROJECT.relativize(source) + " (" + lines + " lines)");
            }
        }
        assertThat(sources).as("main sources found under " + PROJECT).hasSizeGreaterThan(100);
        assertThat(tooLong)
                .as("main classes over " + MAX_LINES + " lines: split them by job")
                .isEmpty();
    }

    @Test
    void theServersRootPackageHoldsAtMostEightClasses() throws IOException {
        Path root = PROJECT.resolve("mirror-server/src/main/java/io/providermirror/server");
        List<String> classes;
        try (Stream<Path> files = Files.list(root)) {
            classes = files.filter(file -> file.toString().endsWith(".java"))
                    .map(file -> file.getFileName().toString())
                    .filter(name -> !name.equals("package-info.java"))
                    .toList();
        }
        assertThat(classes)
                .as("classes in io.providermirror.server itself: move them to the package of their role")
                .hasSizeLessThanOrEqualTo(MAX_ROOT_CLASSES);
    }

    private static List<Path> mainSources() throws IOException {
        List<Path> sources = new ArrayList<>();
        try (Stream<Path> modules = Files.list(PROJECT)) {
            for (Path module : modules.filter(
                            dir -> dir.getFileName().toString().startsWith("mirror-"))
                    .toList()) {
                Path main = module.resolve("src/main/java");
                if (Files.isDirectory(main)) {
                    try (Stream<Path> files = Files.walk(main)) {
                        files.filter(file -> file.toString().endsWith(".java")).forEach(sources::add);
                    }
                }
            }
        }
        return sources;
    }
}
