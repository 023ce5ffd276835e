package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.PrometheusScrape;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Two instances on a store that ignores conditional writes (S3Proxy 2.6.0 with its old {@code filesystem} backend,
 * which overwrites on a {@code PUT} with {@code If-None-Match: *}): each instance finds it out at start-up and says
 * so (a WARN, {@code checks.fillLeases} of {@code /readyz}, {@code mirror_fill_leases_exclusive} 0), and eight cold
 * clients split over both still all get the genuine archive, from at most one origin fetch per instance.
 *
 * <p>The README's figure for such a store comes from this class: {@code -Dunconditional.rounds=N} repeats the
 * eight-client round on N archives of 4 MB and logs how many origin fetches each took (the fake origin keeps every
 * archive in memory, and the method has the build's 3 minutes: 40 rounds fit).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class UnconditionalStoreIT {

    private static final org.slf4j.Logger LOG = LoggerFactory.getLogger(UnconditionalStoreIT.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final MirrorBucket bucket = MirrorBucket.withoutConditionalWrites("unconditional");

    @TempDir
    Path tmp;

    private static MirrorFixture.Builder onBucket(Path cache, FakeOrigin origin, String prefix) {
        return bucket.mirror(cache, origin, prefix, "fillLeaseDuration", "3s")
                .withManagement()
                .set("upstream.readTimeout", "120s");
    }

    private static HttpResponse<String> management(MirrorFixture mirror, String path) throws Exception {
        return mirror.management(path);
    }

    @Test
    void eachInstanceFindsAtStartUpThatTheStoreIgnoresConditionalWritesAndSaysSo() throws Exception {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(log);
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-probe"));
                MirrorFixture mirror =
                        onBucket(tmp.resolve("probe"), origin, "probe/").start()) {
            HttpResponse<String> ready = management(mirror, "/readyz");
            assertThat(ready.statusCode())
                    .as("reported, not a reason to refuse traffic")
                    .isEqualTo(200);
            JsonNode checks = JSON.readTree(ready.body()).get("checks");
            assertThat(checks.get("fillLeases").asText()).startsWith("advisory: the object store ignores");
            assertThat(checks.get("store").asText()).isEqualTo("reachable");
            assertThat(PrometheusScrape.parse(management(mirror, "/metrics").body())
                            .value("mirror_fill_leases_exclusive"))
                    .isZero();
        } finally {
            root.detachAppender(log);
        }
        synchronized (log) {
            assertThat(log.list).anySatisfy(event -> {
                assertThat(event.getLevel()).isEqualTo(Level.WARN);
                assertThat(event.getFormattedMessage())
                        .startsWith("the object store ignores conditional writes")
                        .contains("route each archive's requests to one instance");
            });
        }
    }

    @Test
    void eightColdClientsSplitOverTwoInstancesGetTheGenuineArchiveFromAtMostOneFetchPerInstance() throws Exception {
        int rounds = Integer.getInteger("unconditional.rounds", 1);
        Map<Integer, Integer> roundsByFetches = new TreeMap<>();
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin-split"));
                MirrorFixture a =
                        onBucket(tmp.resolve("cache-a"), origin, "split/").start();
                MirrorFixture b =
                        onBucket(tmp.resolve("cache-b"), origin, "split/").start()) {
            for (int round = 0; round < rounds; round++) {
                String type = "large" + round;
                FakeOrigin.Release release =
                        origin.publish("acme", type, "1.0.0", FakeOrigin.Tamper.NONE, 4_000_000, "linux_amd64");
                byte[] genuine = release.archives().get("linux_amd64");
                String base = "/providers/example.test/acme/" + type + "/";
                String archive = base + "terraform-provider-" + type + "_1.0.0_linux_amd64.zip";
                assertThat(a.get(base + "1.0.0.json").statusCode()).isEqualTo(200);
                assertThat(b.get(base + "1.0.0.json").statusCode()).isEqualTo(200);

                List<CompletableFuture<HttpResponse<byte[]>>> clients = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    MirrorFixture instance = i % 2 == 0 ? a : b;
                    clients.add(CompletableFuture.supplyAsync(() -> {
                        try {
                            return instance.get(archive);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException(e);
                        }
                    }));
                }
                for (CompletableFuture<HttpResponse<byte[]>> client : clients) {
                    HttpResponse<byte[]> response = client.get(120, TimeUnit.SECONDS);
                    assertThat(response.statusCode()).isEqualTo(200);
                    assertThat(response.body()).isEqualTo(genuine);
                }
                int fetches = origin.archiveDownloads(release, "linux_amd64");
                assertThat(fetches)
                        .as("each instance's clients share one fill; the leases, advisory, may not keep the"
                                + " other instance from its own")
                        .isBetween(1, 2);
                roundsByFetches.merge(fetches, 1, Integer::sum);
            }
        }
        LOG.info(
                "a store without conditional writes, two instances, eight cold clients: rounds by origin fetches {}",
                roundsByFetches);
    }
}
