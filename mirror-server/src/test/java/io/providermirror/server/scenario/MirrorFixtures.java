package io.providermirror.server.scenario;

import io.providermirror.testkit.FakeOrigin;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/** Running mirrors for tests outside this package (the commands' tests). */
public final class MirrorFixtures {

    /** The CA a mirror caching in {@code cacheDirectory} generates by default (beside that directory). */
    public static Path generatedCa(Path cacheDirectory) {
        return io.providermirror.server.config.GeneratedTlsConfig.defaults()
                .directoryBeside(cacheDirectory)
                .resolve("ca.pem");
    }

    /** A running mirror for a test, closed with the test. */
    public static final class Running implements AutoCloseable {
        private final MirrorFixture fixture;

        private Running(MirrorFixture fixture) {
            this.fixture = fixture;
        }

        public int port() {
            return fixture.mirror.port();
        }

        /** The CA clients must trust. */
        public Path ca() {
            return fixture.mirror.generatedCaFile().orElseThrow();
        }

        /** The body of a GET that must answer 200. */
        public byte[] get(String path) throws IOException, InterruptedException {
            var response = fixture.get(path);
            if (response.statusCode() != 200) {
                throw new AssertionError(path + " answered " + response.statusCode() + ": "
                        + new String(response.body(), StandardCharsets.UTF_8));
            }
            return response.body();
        }

        @Override
        public void close() {
            fixture.close();
        }
    }

    private MirrorFixtures() {}

    public static Running start(Path cache, FakeOrigin origin) {
        return new Running(MirrorFixture.start(cache, origin, Duration.ofMinutes(15)));
    }

    public static Running startOffline(Path cache, FakeOrigin origin) {
        return new Running(MirrorFixture.builder(cache, origin)
                .set("upstream.offline", true)
                .start());
    }

    /** The configuration of a mirror of {@code origin} caching in {@code cache}, as YAML. */
    public static String yaml(Path cache, FakeOrigin origin) {
        return MirrorFixture.builder(cache, origin).yaml();
    }
}
