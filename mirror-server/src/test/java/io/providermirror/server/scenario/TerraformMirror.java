package io.providermirror.server.scenario;

import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.TerraformExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The real {@code terraform} binary, a {@link FakeOrigin} and a mirror of it (its version lists kept 15 minutes),
 * shared by a class of end-to-end tests: started only when there is a binary, and closed after the class.
 */
record TerraformMirror(Path terraform, FakeOrigin origin, MirrorFixture mirror) {

    /** Starts the origin and the mirror in {@code directory}, for {@code endToEnd} to close; none without a binary. */
    static Optional<TerraformMirror> start(TerraformExtension endToEnd, Path directory) {
        Optional<Path> terraform = endToEnd.binary();
        if (terraform.isEmpty()) {
            return Optional.empty();
        }
        FakeOrigin origin = endToEnd.closeAfterAll(FakeOrigin.start(directory.resolve("origin")));
        MirrorFixture mirror =
                endToEnd.closeAfterAll(MirrorFixture.start(directory.resolve("cache"), origin, Duration.ofMinutes(15)));
        return Optional.of(new TerraformMirror(terraform.get(), origin, mirror));
    }
}
