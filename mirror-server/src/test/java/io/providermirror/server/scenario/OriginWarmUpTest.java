package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.server.app.MirrorApplication;
import io.providermirror.testkit.FakeOriginExtension;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Once the listeners answer, the mirror makes in the background what its first origin request would otherwise make
 * on that request's time (the trust towards origins, the document and archive clients), without asking any origin;
 * offline it makes nothing.
 */
final class OriginWarmUpTest {

    @TempDir
    static Path tmp;

    @RegisterExtension
    static final FakeOriginExtension fixture = new FakeOriginExtension();

    @Test
    void afterStartUpTheOriginClientsAreMadeBeforeAnyRequest() throws Exception {
        int before = fixture.origin().requestsMatching(".*");
        try (MirrorApplication mirror = MirrorApplication.start(
                MirrorFixture.builder(tmp.resolve("online"), fixture.origin()).config(), Clock.systemUTC())) {
            mirror.originsPrepared().get(2, TimeUnit.MINUTES);

            assertThat(mirror.core().originClient().isPrepared()).isTrue();
            assertThat(fixture.origin().requestsMatching(".*"))
                    .as("made without asking an origin")
                    .isEqualTo(before);
        }
    }

    @Test
    void offlineNothingIsMade() throws Exception {
        try (MirrorApplication mirror = MirrorApplication.start(
                MirrorFixture.builder(tmp.resolve("offline"), fixture.origin())
                        .set("upstream.offline", true)
                        .config(),
                Clock.systemUTC())) {
            mirror.originsPrepared().get(2, TimeUnit.MINUTES);

            assertThat(mirror.core().originClient().isPrepared()).isFalse();
        }
    }
}
