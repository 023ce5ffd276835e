package io.providermirror.server.scenario;

import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOriginExtension;
import io.providermirror.testkit.GitHttpServer;

/**
 * A {@link io.providermirror.testkit.FakeOrigin} with its module registry for each test (on an instance field:
 * {@code @RegisterExtension final ModuleRegistryExtension modules = new ModuleRegistryExtension();}), and the mirror
 * the test starts on it ({@link #start}), closed after the test's own tear-down and before the origin; and a git
 * server trusted as the origin is ({@link #git}), started when a test first asks for it.
 */
final class ModuleRegistryExtension extends FakeOriginExtension {

    private FakeModuleRegistry registry;
    private MirrorFixture mirror;
    private GitHttpServer git;

    /** The origin's module registry. */
    FakeModuleRegistry registry() {
        return registry;
    }

    /** The git server, started on the first call, with a certificate of the origin's authority. */
    GitHttpServer git() {
        if (git == null) {
            git = GitHttpServer.start(directory().resolve("git"), origin().certificates());
        }
        return git;
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
        if (git != null) {
            git.close();
            git = null;
        }
    }
}
