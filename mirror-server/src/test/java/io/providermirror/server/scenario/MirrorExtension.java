package io.providermirror.server.scenario;

import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.FakeOriginExtension;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A {@link FakeOrigin} and a running mirror of it ({@link MirrorFixture}, caching in a directory of its own), for
 * a test class ({@code @RegisterExtension static MirrorExtension fixture = MirrorExtension.withDefaults();}) or,
 * on an instance field, for each test. Both run before the class's own set-up methods and stop after its own
 * tear-down methods, the mirror first.
 */
final class MirrorExtension extends FakeOriginExtension {

    /** The mirror's settings beyond the fixture's defaults; {@code directory} has room for files they name. */
    @FunctionalInterface
    interface Settings {
        MirrorFixture.Builder apply(MirrorFixture.Builder builder, Path directory) throws Exception;
    }

    private final Settings settings;
    private MirrorFixture mirror;

    private MirrorExtension(Settings settings) {
        this.settings = settings;
    }

    /** A mirror with the fixture's defaults (an index kept for 15 minutes). */
    static MirrorExtension withDefaults() {
        return new MirrorExtension((builder, directory) -> builder.set(
                        "cache.indexTtl", Duration.ofMinutes(15).toMillis() + "ms")
                .set("upstream.offline", false));
    }

    /** A mirror with the fixture's defaults as {@code settings} adjust them. */
    static MirrorExtension with(Settings settings) {
        return new MirrorExtension(settings);
    }

    /** The running mirror. */
    MirrorFixture mirror() {
        if (mirror == null) {
            throw new IllegalStateException("the mirror runs only while a test of its class does");
        }
        return mirror;
    }

    @Override
    protected void started() throws Exception {
        mirror = settings.apply(MirrorFixture.builder(directory().resolve("cache"), origin()), directory())
                .start();
    }

    @Override
    protected void stopping() {
        mirror.close();
        mirror = null;
    }
}
