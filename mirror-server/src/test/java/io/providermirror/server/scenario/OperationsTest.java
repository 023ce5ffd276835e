package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.server.status.Operations;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.PrometheusScrape;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What operators get: Prometheus metrics that count exactly what happened, liveness and readiness, on the
 * HTTPS listener and on the plain-HTTP management listener.
 */
final class OperationsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    final MirrorExtension fixture = MirrorExtension.with(
            (builder, directory) -> builder.set("management.host", "127.0.0.1").set("management.port", 0));

    private final HttpClient plain = HttpClient.newHttpClient();

    private HttpResponse<String> management(String path) throws Exception {
        return plain.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                                + fixture.mirror().mirror.managementPort().orElseThrow() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private PrometheusScrape scrape() throws Exception {
        HttpResponse<String> response = management("/metrics");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).contains(Operations.METRICS_CONTENT_TYPE);
        return PrometheusScrape.parse(response.body());
    }

    /** The first scrape at which {@code ready} holds (the exact figures are then asserted one by one). */
    private PrometheusScrape scrapeOnce(Predicate<PrometheusScrape> ready) {
        AtomicReference<PrometheusScrape> last = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            last.set(scrape());
            return ready.test(last.get());
        });
        return last.get();
    }

    @Test
    void metricsCountExactlyWhatHappened() throws Exception {
        FakeOrigin.Release release =
                fixture.origin().publish("acme", "metered", "1.0.0", FakeOrigin.Tamper.NONE, 50_000, "linux_amd64");
        fixture.origin().publish("acme", "forged", "1.0.0", FakeOrigin.Tamper.WRONG_SIGNING_KEY, 0, "linux_amd64");
        String base = fixture.mirror().providerPath("acme", "metered");
        int archiveBytes = release.archives().get("linux_amd64").length;
        for (int i = 0; i < 2; i++) {
            assertThat(fixture.mirror().get(base + "index.json").statusCode()).isEqualTo(200);
            assertThat(fixture.mirror().get(base + "1.0.0.json").statusCode()).isEqualTo(200);
            assertThat(fixture.mirror()
                            .get(base + "terraform-provider-metered_1.0.0_linux_amd64.zip")
                            .body())
                    .hasSize(archiveBytes);
        }
        assertThat(fixture.mirror()
                        .get(fixture.mirror().providerPath("acme", "forged") + "1.0.0.json")
                        .statusCode())
                .isEqualTo(502);

        // An exchange is counted when its last write completes, which may be just after the client has the bytes.
        PrometheusScrape metrics = scrapeOnce(scrape -> scrape.value("mirror_served_bytes_total", "source", "cache")
                        >= archiveBytes
                && scrape.value("mirror_http_requests_seconds_count", "route", "version", "status", "502") >= 1);

        String host = "127.0.0.1:" + fixture.origin().discoveryUrl().getPort();
        assertThat(metrics.value("mirror_cache_lookups_total", "kind", "index", "result", "miss"))
                .isEqualTo(1);
        assertThat(metrics.value("mirror_cache_lookups_total", "kind", "index", "result", "hit"))
                .isEqualTo(1);
        assertThat(metrics.value("mirror_cache_lookups_total", "kind", "version", "result", "miss"))
                .isEqualTo(2);
        assertThat(metrics.value("mirror_cache_lookups_total", "kind", "version", "result", "hit"))
                .isEqualTo(1);
        assertThat(metrics.value("mirror_cache_lookups_total", "kind", "archive", "result", "miss"))
                .isEqualTo(1);
        assertThat(metrics.value("mirror_cache_lookups_total", "kind", "archive", "result", "hit"))
                .isEqualTo(1);
        assertThat(metrics.value(
                        "mirror_upstream_requests_seconds_count",
                        "host",
                        host,
                        "operation",
                        "discovery",
                        "outcome",
                        "success"))
                .isEqualTo(1);
        assertThat(metrics.value(
                        "mirror_upstream_requests_seconds_count",
                        "host",
                        host,
                        "operation",
                        "versions",
                        "outcome",
                        "success"))
                .isEqualTo(2);
        assertThat(metrics.value(
                        "mirror_upstream_requests_seconds_count",
                        "host",
                        host,
                        "operation",
                        "archive",
                        "outcome",
                        "success"))
                .isEqualTo(1);
        assertThat(metrics.value("mirror_upstream_requests_seconds_bucket", "operation", "archive", "le", "+Inf"))
                .as("a latency histogram")
                .isEqualTo(1);
        assertThat(metrics.value("mirror_served_bytes_total", "source", "upstream"))
                .isEqualTo(archiveBytes);
        assertThat(metrics.value("mirror_served_bytes_total", "source", "cache"))
                .isEqualTo(archiveBytes);
        assertThat(metrics.value("mirror_verification_failures_total", "host", "example.test", "reason", "signature"))
                .isEqualTo(1);
        assertThat(metrics.value("mirror_cache_size_bytes")).isEqualTo(archiveBytes);
        assertThat(metrics.value("mirror_cache_archives")).isEqualTo(1);
        assertThat(metrics.value("mirror_cache_held_bytes"))
                .as("nothing held in memory before an archive takes the hot path")
                .isZero();
        assertThat(metrics.value("mirror_cache_evictions_total")).isZero();
        assertThat(metrics.value("mirror_fills_active")).isZero();
        assertThat(metrics.value("mirror_http_requests_seconds_count", "route", "archive", "status", "200"))
                .isEqualTo(2);
        assertThat(metrics.value("mirror_http_requests_seconds_count", "route", "version", "status", "502"))
                .isEqualTo(1);
        // The standard binders: JVM, process, the cache's disk, Netty, Caffeine.
        assertThat(metrics.value("jvm_memory_used_bytes", "area", "heap")).isPositive();
        assertThat(metrics.value("process_files_open_files")).isPositive();
        assertThat(metrics.value("disk_free_bytes", "volume", "cache")).isPositive();
        assertThat(metrics.names())
                .anyMatch(name -> name.startsWith("netty_eventexecutor_"))
                .anyMatch(name -> name.startsWith("netty_allocator_"));
        assertThat(metrics.value("cache_gets_total", "cache", "releases", "result", "hit"))
                .isPositive();

        // Warm archives are answered on the event loop's hot path; each is still counted as a hit.
        for (int i = 0; i < 3; i++) {
            assertThat(fixture.mirror()
                            .get(base + "terraform-provider-metered_1.0.0_linux_amd64.zip")
                            .body())
                    .hasSize(archiveBytes);
        }
        PrometheusScrape warm = scrapeOnce(
                scrape -> scrape.value("mirror_served_bytes_total", "source", "cache") >= 4.0 * archiveBytes);
        assertThat(warm.value("mirror_cache_lookups_total", "kind", "archive", "result", "hit"))
                .isEqualTo(1 + 3);
        assertThat(warm.value("mirror_cache_lookups_total", "kind", "archive", "result", "miss"))
                .isEqualTo(1);
        assertThat(warm.value("mirror_served_bytes_total", "source", "cache")).isEqualTo(4.0 * archiveBytes);
        assertThat(warm.value("mirror_cache_held_bytes"))
                .as("the small archive, once on the hot path, is held in memory")
                .isEqualTo(archiveBytes);
    }

    @Test
    void theHttpsListenerServesTheSameMetrics() throws Exception {
        HttpResponse<byte[]> response = fixture.mirror().get("/metrics");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(PrometheusScrape.parse(new String(response.body(), java.nio.charset.StandardCharsets.UTF_8))
                        .names())
                .contains("mirror_cache_lookups_total", "mirror_cache_size_bytes");
    }

    @Test
    void theManualIsServedPageByPageFromTheJar() throws Exception {
        HttpResponse<byte[]> readme = fixture.mirror().get("/docs");
        assertThat(readme.statusCode()).isEqualTo(200);
        assertThat(new String(readme.body(), java.nio.charset.StandardCharsets.UTF_8))
                .startsWith("# provider-mirror")
                .contains("docs/security.md");
        HttpResponse<byte[]> security = fixture.mirror().get("/docs/security.md");
        assertThat(security.statusCode()).isEqualTo(200);
        assertThat(new String(security.body(), java.nio.charset.StandardCharsets.UTF_8))
                .startsWith("# Security");
        assertThat(fixture.mirror().get("/docs/no-such-page.md").statusCode()).isEqualTo(404);
    }

    @Test
    void healthAndReadinessOnBothListeners() throws Exception {
        assertThat(management("/healthz").body()).isEqualTo("{\"status\":\"ok\"}");
        assertThat(fixture.mirror().get("/healthz").statusCode()).isEqualTo(200);
        HttpResponse<String> ready = management("/readyz");
        assertThat(ready.statusCode()).isEqualTo(200);
        JsonNode body = JSON.readTree(ready.body());
        assertThat(body.get("status").asText()).isEqualTo("ready");
        assertThat(body.get("checks").get("cacheDirectory").asText()).isEqualTo("writable");
        assertThat(body.get("checks").get("listener").asText()).isEqualTo("up");
        assertThat(body.get("checks").get("fillLeases").asText()).isEqualTo("exclusive");
        assertThat(fixture.mirror().get("/readyz").statusCode()).isEqualTo(200);
    }

    @Test
    void aCacheDirectoryThatCannotBeWrittenMakesTheMirrorNotReady() throws Exception {
        Path tmpDirectory = fixture.mirror().cacheDirectory.resolve("tmp");
        Files.delete(tmpDirectory);
        Files.writeString(tmpDirectory, "a file where the mirror's temporary directory should be");
        try {
            HttpResponse<String> ready = management("/readyz");
            assertThat(ready.statusCode()).isEqualTo(503);
            JsonNode body = JSON.readTree(ready.body());
            assertThat(body.get("status").asText()).isEqualTo("not ready");
            assertThat(body.get("checks").get("cacheDirectory").asText()).startsWith("not writable");
            assertThat(management("/healthz").statusCode())
                    .as("alive all the same")
                    .isEqualTo(200);
        } finally {
            Files.delete(tmpDirectory);
            Files.createDirectory(tmpDirectory);
        }
        assertThat(management("/readyz").statusCode()).isEqualTo(200);
    }

    @Test
    void theManagementListenerAnswersOnlyTheOperatorEndpoints() throws Exception {
        for (String path : new String[] {"/", "/providers/example.test/acme/x/index.json", "/docs"}) {
            HttpResponse<String> response = management(path);
            assertThat(response.statusCode()).as(path).isEqualTo(404);
            assertThat(JSON.readTree(response.body()).get("errors").get(0).asText())
                    .contains("management listener");
        }
    }
}
