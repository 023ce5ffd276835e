package io.providermirror.server.app;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.server.config.MirrorConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Once the listeners answer, a mirror runs one cold provider through a mirror of its own (the {@link SampleRelease}
 * from a {@link SampleOrigin} on 127.0.0.1, over a temporary directory), so that the first client's cold provider
 * does not run that code for the first time; nothing of it reaches the mirror that serves clients or its log, and
 * nothing of it is left.
 */
final class StartupRehearsalTest {

    @TempDir
    Path tmp;

    @Test
    void aStartedMirrorRehearsesAColdProviderAndKeepsNothingOfItNotEvenALogLine() throws Exception {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        root.addAppender(logged);
        try (MirrorApplication mirror = MirrorApplication.start(config(Map.of()), Clock.systemUTC())) {
            Optional<StartupRehearsal.Outcome> outcome = mirror.rehearsed().get(2, TimeUnit.MINUTES);

            assertThat(outcome).isPresent();
            assertThat(outcome.get().failure()).isEmpty();
            assertThat(outcome.get().served())
                    .as("the sample's archive, index.json and version document answered as published")
                    .isTrue();
            assertThat(outcome.get().directory())
                    .as("its temporary directory, with its cache, log and certificates")
                    .satisfies(directory -> assertThat(directory.toString()).contains("provider-mirror-rehearsal-"))
                    .doesNotExist();
            assertThat(mirror.core().blobs().list())
                    .as("nothing in the real cache")
                    .isEmpty();
            assertThat(mirror.core().log().decisions().flush(Duration.ofSeconds(30)))
                    .isTrue();
            assertThat(mirror.core().log().log().current().checkpoint().size())
                    .as("nothing in the real transparency log")
                    .isZero();
        } finally {
            root.detachAppender(logged);
        }
        assertThat(logged.list)
                .as("no line of the rehearsal's mirror, its origin or its client in the log")
                .noneMatch(event -> event.getFormattedMessage().contains(StartupRehearsal.HOST)
                        || event.getThreadName().equals("start-up-rehearsal")
                        || event.getThreadName().equals("sample-origin"))
                .noneMatch(event -> event.getLoggerName().equals("access"));
    }

    @Test
    void noRehearsalWhenTurnedOffOrOffline() throws Exception {
        for (Map<String, Object> upstream :
                List.<Map<String, Object>>of(Map.of("rehearseAtStartup", false), Map.of("offline", true))) {
            try (MirrorApplication mirror = MirrorApplication.start(config(upstream), Clock.systemUTC())) {
                assertThat(mirror.rehearsed().get(2, TimeUnit.MINUTES))
                        .as(upstream.toString())
                        .isEmpty();
            }
        }
    }

    @Test
    void theRehearsalsMirrorMayReachItsOriginOnlyAndOnlyWithItsToken() throws Exception {
        try (SampleOrigin origin = SampleOrigin.start(
                new io.providermirror.server.tls.GeneratedCertificates(tmp.resolve("tls"), List.of(), Clock.systemUTC())
                        .loadOrCreate(),
                Thread.currentThread().getThreadGroup())) {
            MirrorConfig config = StartupRehearsal.config(tmp, origin, "secret");

            assertThat(config.server().host()).isEqualTo("127.0.0.1");
            assertThat(config.upstream().hosts()).containsOnlyKeys(StartupRehearsal.HOST);
            assertThat(config.upstream().rehearseAtStartup())
                    .as("no rehearsal of its own")
                    .isFalse();
            assertThat(config.upstream().discoverAtStartup()).isFalse();
            assertThat(config.cache().directory().startsWith(tmp)).isTrue();
            assertThat(config.auth().clients()).singleElement().satisfies(client -> {
                assertThat(client.hosts()).containsExactly(StartupRehearsal.HOST);
                assertThat(client.token()).isNotEqualTo("secret").startsWith("sha256:");
            });
            assertThat(Files.exists(tmp.resolve("tls/ca.pem"))).isTrue();
        }
    }

    private MirrorConfig config(Map<String, Object> upstream) throws Exception {
        String extra = upstream.isEmpty()
                ? ""
                : ",\"upstream\":" + new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(upstream);
        return new ConfigLoader(Map.of())
                .loadText("{\"server\":{\"host\":\"127.0.0.1\",\"port\":0},\"cache\":{\"directory\":\""
                        + tmp.resolve("cache" + upstream.hashCode()) + "\"}" + extra + "}");
    }
}
