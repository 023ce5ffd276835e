package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.SettableClock;
import io.providermirror.testkit.TerraformCli;
import io.providermirror.testkit.TerraformExtension;
import io.providermirror.testkit.TerraformWorkspace;
import io.providermirror.testkit.TestPgpKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code terraform} CLI through a mirror with a release-age quarantine, on a clock the test moves:
 * {@code init} installs the newest version old enough, a lock file pinning a younger one fails, and once the
 * clock passes the version's date {@code init -upgrade} takes it.
 */
final class ReleaseAgeTerraformIT {

    @RegisterExtension
    static final TerraformExtension endToEnd = new TerraformExtension();

    @TempDir
    Path tmp;

    @Test
    void initPicksTheNewestVersionOldEnoughAndTheHeldOneOnceItAgesIn() throws Exception {
        Path terraform = endToEnd.binary().orElseThrow();
        SettableClock clock = new SettableClock();
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                        .set("cache.indexTtl", "1m")
                        .set("policy.minimumReleaseAge", "7d")
                        .clock(clock)
                        .start()) {
            // Signed a month ago: old enough by its signature's date, which the mirror reads as it verifies it.
            TestPgpKey key = origin.signingKey();
            origin.publishSigned(
                    "acme",
                    "aged",
                    "1.0.0",
                    key,
                    sums -> key.signDetached(sums, clock.instant().minus(Duration.ofDays(30)), null),
                    "linux_amd64");
            assertThat(mirror.get(mirror.providerPath("acme", "aged") + "index.json")
                            .statusCode())
                    .isEqualTo(200);
            origin.publish("acme", "aged", "1.1.0", "linux_amd64");
            clock.advance(Duration.ofMinutes(2));
            mirror.get(mirror.providerPath("acme", "aged") + "index.json");
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> sightings(tmp.resolve("cache")).contains("1.1.0"));

            String mirrorUrl = "https://localhost:" + mirror.mirror.port() + "/providers/";
            Path cliConfig =
                    Files.writeString(tmp.resolve("terraform.rc"), TerraformWorkspace.networkMirror(mirrorUrl));
            Files.createDirectories(tmp.resolve("home"));
            TerraformCli cli = TerraformCli.using(
                    terraform,
                    tmp.resolve("home"),
                    cliConfig,
                    mirror.mirror.generatedCaFile().orElseThrow());

            Path open = TerraformWorkspace.write(
                    tmp.resolve("open"),
                    Map.of("main.tf", TerraformWorkspace.requiredProvider("aged", "example.test/acme/aged", ">= 1.0")));
            TerraformCli.Result init = cli.run(open, "init", "-input=false", "-no-color");
            assertThat(init.exitCode()).as(init.output()).isZero();
            assertThat(init.output()).contains("Installing example.test/acme/aged v1.0.0");

            Path pinned = TerraformWorkspace.write(
                    tmp.resolve("pinned"),
                    Map.of("main.tf", TerraformWorkspace.requiredProvider("aged", "example.test/acme/aged", "1.1.0")));
            TerraformCli.Result held = cli.run(pinned, "init", "-input=false", "-no-color");
            assertThat(held.exitCode()).as(held.output()).isNotZero();

            clock.advance(Duration.ofDays(7));
            TerraformCli.Result upgrade = cli.run(open, "init", "-upgrade", "-input=false", "-no-color");
            assertThat(upgrade.exitCode()).as(upgrade.output()).isZero();
            assertThat(upgrade.output()).contains("Installing example.test/acme/aged v1.1.0");
        }
    }

    private static String sightings(Path cache) {
        try (Stream<Path> files = Files.walk(cache)) {
            return files.filter(file -> file.endsWith("sightings.json"))
                    .map(file -> {
                        try {
                            return Files.readString(file);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .reduce("", String::concat);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
