package io.providermirror.testkit;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For a test class that drives the real {@code terraform} CLI ({@code @RegisterExtension static final
 * TerraformExtension terraform = new TerraformExtension();}): each test is reported as skipped, with the reason
 * {@link TerraformCli#locateOrSkip()} gives, when there is no binary, rather than the class silently running
 * nothing; and what the class's set-up started ({@link #closeAfterAll}) is closed after its tear-down, the last
 * started first.
 */
public final class TerraformExtension implements BeforeEachCallback, AfterAllCallback {

    private final Optional<Path> binary = TerraformCli.locate();
    private final Deque<AutoCloseable> started = new ArrayDeque<>();

    /** The binary, if there is one; a class's set-up starts nothing without it. */
    public Optional<Path> binary() {
        return binary;
    }

    /** Closes {@code resource} after the class's tests and tear-down; returns it. */
    public <T extends AutoCloseable> T closeAfterAll(T resource) {
        started.push(resource);
        return resource;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        TerraformCli.locateOrSkip();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        Exception failure = null;
        while (!started.isEmpty()) {
            try {
                started.pop().close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
