package io.providermirror.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link FakeOrigin} for a test class, in a directory of its own: registered on a static field
 * ({@code @RegisterExtension static FakeOriginExtension origin = new FakeOriginExtension();}) it serves the
 * whole class, on an instance field each test gets a fresh one. It replaces the {@code @TempDir} and
 * start/close blocks every test of an origin repeated; it starts before the class's own set-up methods run.
 */
public class FakeOriginExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    private Path directory;
    private FakeOrigin origin;
    private boolean perClass;

    /** The running origin. */
    public final FakeOrigin origin() {
        if (origin == null) {
            throw new IllegalStateException("the origin runs only while a test of its class does");
        }
        return origin;
    }

    /** The directory the origin keeps its files in, with room beside it for what else the test writes. */
    public final Path directory() {
        return directory;
    }

    @Override
    public final void beforeAll(ExtensionContext context) throws Exception {
        perClass = true;
        start();
    }

    @Override
    public final void beforeEach(ExtensionContext context) throws Exception {
        if (!perClass) {
            start();
        }
    }

    @Override
    public final void afterEach(ExtensionContext context) throws Exception {
        if (!perClass) {
            stop();
        }
    }

    @Override
    public final void afterAll(ExtensionContext context) throws Exception {
        stop();
    }

    private void start() throws Exception {
        directory = Files.createTempDirectory("fake-origin");
        origin = FakeOrigin.start(directory.resolve("origin"));
        started();
    }

    /** What a subclass starts beside the origin, once it runs. */
    protected void started() throws Exception {}

    /** What a subclass stops before the origin stops. */
    protected void stopping() {}

    private void stop() throws IOException {
        if (origin == null) {
            return;
        }
        try {
            stopping();
        } finally {
            origin.close();
            origin = null;
            delete(directory);
        }
    }

    private static void delete(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            // Deepest first, so each directory is empty when its turn comes.
            files.sorted(Comparator.reverseOrder()).forEach(file -> {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
