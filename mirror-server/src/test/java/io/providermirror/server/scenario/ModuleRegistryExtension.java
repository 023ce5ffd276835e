package io.providermirror.server.scenario;

import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOriginExtension;

/**
 * A {@link io.providermirror.testkit.FakeOrigin} with its module registry for each test (on an instance field:
 * {@code @RegisterExtension final ModuleRegistryExtension modules = new ModuleRegistryExtension();}), and the mirror
 * the test starts on it ({@link #start}), closed after the test's own tear-down and before the origin.
 */
final class ModuleRegistryExtension extends FakeOriginExtension {

    private FakeModuleRegistry registry;
    private MirrorFixture mirror;

    /** The origin's module registry. */
    FakeModuleRegistry registry() {
        return registry;
    }

    /** Starts the mirror {@code builder} configures, to be closed after the test. */
    MirrorFixture start(MirrorFixture.Builder builder) {
        if (mirror != null) {
            throw new IllegalStateException("one mirror per test");
        }
        mirror = builder.start();
        return mirror;
    }

    @Override
    protected void started() {
        registry = FakeModuleRegistry.of(origin());
    }

    @Override
    protected void stopping() {
        if (mirror != null) {
            mirror.close();
            mirror = null;
        }
    }
}
