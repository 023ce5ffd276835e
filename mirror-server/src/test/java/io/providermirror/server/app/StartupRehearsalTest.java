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
        // The access log does not pass its lines on to the root logger's appenders: its own is listened to as well.
        Logger access = (Logger) LoggerFactory.getLogger("io.providermirror.access");
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        root.addAppender(logged);
        access.addAppender(logged);
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
            access.detachAppender(logged);
        }
        assertThat(logged.list)
                .as("no line of the rehearsal's mirror (its start, its fetch, its access lines), origin or client")
                .noneMatch(event -> event.getFormattedMessage().contains(StartupRehearsal.HOST)
                        || event.getFormattedMessage().contains(StartupRehearsal.PREFIX)
                        || event.getThreadName().equals("start-up-rehearsal")
                        || event.getThreadName().equals("sample-origin"))
                .as("the real mirror's own lines are kept")
                .anyMatch(event -> event.getLoggerName().endsWith("FileBlobStore"));
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
    void theRehearsalsMirrorAnswersItsTokenAloneAndForTheSampleAlone() throws Exception {
        java.net.http.HttpClient client = null;
        try (SampleOrigin origin = SampleOrigin.start(
                        new io.providermirror.server.tls.GeneratedCertificates(
                                        tmp.resolve("tls"), List.of(), Clock.systemUTC())
                                .loadOrCreate(),
                        Thread.currentThread().getThreadGroup());
                MirrorApplication rehearsal =
                        MirrorApplication.start(StartupRehearsal.config(tmp, origin, "secret"), Clock.systemUTC())) {
            client = java.net.http.HttpClient.newBuilder()
                    .sslContext(io.providermirror.upstream.TrustedCertificates.sslContext(
                            rehearsal.generatedCaFile().orElseThrow()))
                    .build();
            String base = "https://127.0.0.1:" + rehearsal.port() + "/providers/";
            String sample = base + SampleRelease.ADDRESS + "/" + SampleRelease.ARCHIVE;

            String index = base + SampleRelease.ADDRESS + "/index.json";
            assertThat(status(client, index, null)).as("no token").isEqualTo(401);
            assertThat(status(client, index, "guessed")).as("another token").isEqualTo(401);
            assertThat(status(client, sample, null))
                    .as("an archive URL neither signed nor with the token")
                    .isEqualTo(403);
            assertThat(status(client, base + "registry.terraform.io/hashicorp/null/index.json", "secret"))
                    .as("another origin")
                    .isEqualTo(403);
            assertThat(status(client, sample, "secret")).isEqualTo(200);
            assertThat(rehearsal.rehearsed().get(2, TimeUnit.MINUTES))
                    .as("no rehearsal of its own")
                    .isEmpty();
            assertThat(rehearsal.cacheDirectory().startsWith(tmp)).isTrue();
            assertThat(StartupRehearsal.config(tmp, origin, "secret")
                            .upstream()
                            .proxy()
                            .noProxy())
                    .as("its origin never reached through an egress proxy of the environment (HTTPS_PROXY)")
                    .containsExactly("127.0.0.1");
        }
    }

    @Test
    void whatARehearsalLeftAnHourAgoIsDeletedAndAYoungerOneKept() throws Exception {
        Path temporary = Path.of(System.getProperty("java.io.tmpdir"));
        Path abandoned = Files.createTempDirectory(temporary, StartupRehearsal.PREFIX);
        Files.writeString(
                Files.createDirectories(abandoned.resolve("cache/tmp")).resolve("fill"), "left");
        Path running = Files.createTempDirectory(temporary, StartupRehearsal.PREFIX);
        java.time.Instant now = java.time.Instant.now();
        Files.setLastModifiedTime(
                abandoned, java.nio.file.attribute.FileTime.from(now.minus(StartupRehearsal.ABANDONED_AFTER)));
        try {
            StartupRehearsal.removeAbandoned(Clock.fixed(now.plusSeconds(1), java.time.ZoneOffset.UTC));

            assertThat(abandoned).doesNotExist();
            assertThat(running).isDirectory();
        } finally {
            io.providermirror.upstream.git.FetchedSource.deleteTree(running);
            io.providermirror.upstream.git.FetchedSource.deleteTree(abandoned);
        }
    }

    private static int status(java.net.http.HttpClient client, String url, String token) throws Exception {
        java.net.http.HttpRequest.Builder request = java.net.http.HttpRequest.newBuilder(java.net.URI.create(url));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return client.send(request.build(), java.net.http.HttpResponse.BodyHandlers.discarding())
                .statusCode();
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
