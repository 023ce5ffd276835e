package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.server.app.MirrorApplication;
import io.providermirror.testkit.FakeOriginExtension;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Once the listeners answer, the mirror makes in the background what the first request for a cold provider would
 * otherwise make on that request's time: the trust towards origins and the origin clients, and (with
 * {@code upstream.discoverAtStartup}, the default) the discovery of each origin it expects, asked once with each
 * origin client and kept, so that the first client's request does not discover again. Offline it asks nothing.
 */
final class OriginWarmUpTest {

    private static final String DISCOVERY = "/\\.well-known/terraform\\.json";

    @TempDir
    static Path tmp;

    @RegisterExtension
    static final FakeOriginExtension fixture = new FakeOriginExtension();

    @Test
    void afterStartUpEachConfiguredOriginIsDiscoveredOnceWithEachClientAndTheFirstRequestFindsItKnown()
            throws Exception {
        fixture.origin().publish("acme", "warmed", "1.0.0", "linux_amd64");
        int discoveries = fixture.origin().requestsMatching(DISCOVERY);
        int others = fixture.origin().requestsMatching(".*") - discoveries;
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("online"), fixture.origin())
                .set("upstream.discoverAtStartup", true)
                .start()) {
            mirror.mirror.warmedUp().get(2, TimeUnit.MINUTES);

            assertThat(mirror.mirror.core().originClient().isPrepared()).isTrue();
            assertThat(mirror.mirror.core().log().decisions().flush(java.time.Duration.ofSeconds(30)))
                    .isTrue();
            assertThat(mirror.mirror.core().log().log().current().checkpoint().size())
                    .as("the sample release's documents formatted, none of its entries recorded")
                    .isZero();
            assertThat(fixture.origin().requestsMatching(DISCOVERY))
                    .as("the configured origin asked for discovery by the document client and the archive client")
                    .isEqualTo(discoveries + 2);
            assertThat(fixture.origin().requestsMatching(".*")
                            - fixture.origin().requestsMatching(DISCOVERY))
                    .as("nothing else asked")
                    .isEqualTo(others);

            HttpResponse<byte[]> index = mirror.get(mirror.providerPath("acme", "warmed") + "index.json");

            assertThat(index.statusCode()).isEqualTo(200);
            assertThat(fixture.origin().requestsMatching(DISCOVERY))
                    .as("the first request finds the origin's base URL known")
                    .isEqualTo(discoveries + 2);
        }
    }

    @Test
    void aHostThePolicyRefusesWhollyIsNotAskedAfterStartUp() throws Exception {
        int before = fixture.origin().requestsMatching(".*");
        try (MirrorApplication mirror = MirrorApplication.start(
                MirrorFixture.builder(tmp.resolve("refused"), fixture.origin())
                        .set("upstream.discoverAtStartup", true)
                        .set("policy.deny", java.util.List.of(MirrorFixture.HOST + "/*/*"))
                        .set("policy.modules.deny", java.util.List.of(MirrorFixture.HOST + "/*/*/*"))
                        .config(),
                Clock.systemUTC())) {
            mirror.warmedUp().get(2, TimeUnit.MINUTES);

            assertThat(fixture.origin().requestsMatching(".*"))
                    .as("a host no client request may reach is not asked either")
                    .isEqualTo(before);
        }
    }

    @Test
    void aHostThePolicyRefusesForProvidersOnlyIsStillDiscoveredForItsModules() throws Exception {
        int discoveries = fixture.origin().requestsMatching(DISCOVERY);
        try (MirrorApplication mirror = MirrorApplication.start(
                MirrorFixture.builder(tmp.resolve("modules-only"), fixture.origin())
                        .set("upstream.discoverAtStartup", true)
                        .set("policy.deny", java.util.List.of(MirrorFixture.HOST + "/*/*"))
                        .config(),
                Clock.systemUTC())) {
            mirror.warmedUp().get(2, TimeUnit.MINUTES);

            assertThat(fixture.origin().requestsMatching(DISCOVERY)).isEqualTo(discoveries + 2);
        }
    }

    @Test
    void withoutDiscoveryAtStartUpTheClientsAreMadeAndNoOriginIsAsked() throws Exception {
        int before = fixture.origin().requestsMatching(".*");
        try (MirrorApplication mirror = MirrorApplication.start(
                MirrorFixture.builder(tmp.resolve("quiet"), fixture.origin()).config(), Clock.systemUTC())) {
            mirror.warmedUp().get(2, TimeUnit.MINUTES);

            assertThat(mirror.core().originClient().isPrepared()).isTrue();
            assertThat(fixture.origin().requestsMatching(".*"))
                    .as("made without asking an origin")
                    .isEqualTo(before);
        }
    }

    @Test
    void offlineNothingIsMadeAndNoOriginIsAsked() throws Exception {
        int before = fixture.origin().requestsMatching(".*");
        try (MirrorApplication mirror = MirrorApplication.start(
                MirrorFixture.builder(tmp.resolve("offline"), fixture.origin())
                        .set("upstream.offline", true)
                        .set("upstream.discoverAtStartup", true)
                        .config(),
                Clock.systemUTC())) {
            mirror.warmedUp().get(2, TimeUnit.MINUTES);

            assertThat(mirror.originsPrepared()).isDone();
            assertThat(mirror.core().originClient().isPrepared()).isFalse();
            assertThat(fixture.origin().requestsMatching(".*")).isEqualTo(before);
        }
    }
}
