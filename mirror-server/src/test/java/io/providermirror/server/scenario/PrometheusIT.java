package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.providermirror.testkit.ExternalTools;
import io.providermirror.testkit.FakeOrigin;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real Prometheus (Debian's package) scrapes the running mirror with the shipped scrape configuration,
 * loads the shipped alert rules, and answers the README's hit-rate query; promtool accepts rules and config.
 */
final class PrometheusIT {

    /** The hit-rate query the README gives. */
    static final String HIT_RATE = "sum(rate(mirror_cache_lookups_total{result=~\"hit|stale\"}[5m])) "
            + "/ sum(rate(mirror_cache_lookups_total[5m]))";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path DEPLOY = Path.of("..", "deploy");

    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newHttpClient();

    /** How many alert rules deploy/prometheus/alerts.yml holds. */
    private static int shippedRules() throws java.io.IOException {
        return (int) java.nio.file.Files.readAllLines(DEPLOY.resolve("prometheus/alerts.yml")).stream()
                .filter(line -> line.strip().startsWith("- alert:"))
                .count();
    }

    @Test
    void promtoolAcceptsTheShippedAlertRules() throws Exception {
        Path promtool = ExternalTools.locateOrSkip("prometheus", "promtool");
        ExternalTools.Result check = ExternalTools.run(
                60,
                promtool,
                "check",
                "rules",
                DEPLOY.resolve("prometheus/alerts.yml").toString());
        assertThat(check.exitCode()).as(check.output()).isZero();
        assertThat(check.output()).contains("SUCCESS: " + shippedRules() + " rules found");
    }

    @Test
    void theModulePinAlertFiresOnAPinViolationAndTheGeneralVerificationAlertDoesNot() throws Exception {
        Path promtool = ExternalTools.locateOrSkip("prometheus", "promtool");
        ExternalTools.Result test = ExternalTools.run(
                60,
                promtool,
                "test",
                "rules",
                DEPLOY.resolve("prometheus/alerts.test.yml").toString());
        assertThat(test.exitCode()).as(test.output()).isZero();
        assertThat(test.output()).contains("SUCCESS");
    }

    @Test
    void prometheusScrapesTheMirrorWithTheShippedConfiguration() throws Exception {
        Path prometheus = ExternalTools.locateOrSkip("prometheus", "prometheus");
        Path promtool = ExternalTools.locateOrSkip("prometheus", "promtool");
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                        .set("management.host", "127.0.0.1")
                        .set("management.port", 0)
                        .start()) {
            Path config = shippedConfigScraping(mirror.mirror.managementPort().orElseThrow());
            ExternalTools.Result check = ExternalTools.run(60, promtool, "check", "config", config.toString());
            assertThat(check.exitCode()).as(check.output()).isZero();

            int port;
            try (ServerSocket socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            Process server = new ProcessBuilder(
                            prometheus.toString(),
                            "--config.file=" + config,
                            "--storage.tsdb.path=" + tmp.resolve("tsdb"),
                            "--web.listen-address=127.0.0.1:" + port)
                    .redirectErrorStream(true)
                    .redirectOutput(tmp.resolve("prometheus.log").toFile())
                    .start();
            try {
                String api = "http://127.0.0.1:" + port + "/api/v1/";
                await().atMost(Duration.ofSeconds(60))
                        .ignoreExceptions()
                        .until(() -> scalar(query(api, "up{job=\"provider-mirror\"}")) == 1.0);

                origin.publish("acme", "scraped", "1.0.0", "linux_amd64");
                String base = mirror.providerPath("acme", "scraped");
                for (int i = 0; i < 3; i++) {
                    assertThat(mirror.get(base + "index.json").statusCode()).isEqualTo(200);
                }
                // 1 miss and 2 hits; once Prometheus has scraped them, the README's query says two thirds.
                await().atMost(Duration.ofSeconds(60))
                        .ignoreExceptions()
                        .until(() -> scalar(query(api, "sum(mirror_cache_lookups_total{kind=\"index\"})")) == 3.0);
                await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
                    double hitRate = scalar(query(api, HIT_RATE));
                    return Math.abs(hitRate - 2.0 / 3) < 1e-6;
                });

                JsonNode series =
                        get(api + "series?match[]=" + encode("{__name__=~\"mirror_.+\",job=\"provider-mirror\"}"));
                List<String> names = new ArrayList<>();
                series.get("data").forEach(s -> names.add(s.get("__name__").asText()));
                assertThat(names)
                        .contains(
                                "mirror_cache_lookups_total",
                                "mirror_cache_size_bytes",
                                "mirror_http_requests_seconds_count",
                                "mirror_upstream_requests_seconds_bucket");

                JsonNode rules =
                        get(api + "rules").get("data").get("groups").get(0).get("rules");
                assertThat(rules)
                        .hasSize(shippedRules())
                        .allMatch(rule -> rule.get("health").asText().equals("ok"));
            } finally {
                server.destroy();
                server.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    /** The shipped prometheus.yml (and its rule file beside it), scraping this mirror every second. */
    private Path shippedConfigScraping(int managementPort) throws Exception {
        YAMLMapper yaml = new YAMLMapper();
        ObjectNode config = (ObjectNode)
                yaml.readTree(DEPLOY.resolve("prometheus/prometheus.yml").toFile());
        ((ObjectNode) config.get("global")).put("scrape_interval", "1s").put("evaluation_interval", "1s");
        ObjectNode job = (ObjectNode) config.get("scrape_configs").get(0);
        assertThat(job.get("job_name").asText()).isEqualTo("provider-mirror");
        // The shipped job finds compose's instances by DNS; here the one mirror is on loopback.
        assertThat(job.remove("dns_sd_configs"))
                .as("the shipped job's instances")
                .isNotNull();
        ArrayNode targets = job.putArray("static_configs").addObject().putArray("targets");
        targets.add("127.0.0.1:" + managementPort);
        Path directory = Files.createDirectories(tmp.resolve("prometheus"));
        Files.copy(DEPLOY.resolve("prometheus/alerts.yml"), directory.resolve("alerts.yml"));
        Path file = directory.resolve("prometheus.yml");
        yaml.writeValue(file.toFile(), config);
        return file;
    }

    private JsonNode query(String api, String promql) throws Exception {
        return get(api + "query?query=" + encode(promql));
    }

    private static double scalar(JsonNode response) {
        JsonNode result = response.get("data").get("result");
        return result.isEmpty() ? Double.NaN : result.get(0).get("value").get(1).asDouble();
    }

    private JsonNode get(String url) throws Exception {
        HttpResponse<String> response =
                http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
