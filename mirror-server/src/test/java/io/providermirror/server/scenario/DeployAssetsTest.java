package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.testkit.ExternalTools;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.PrometheusScrape;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code deploy/} ships fits the code: every metric the dashboard and the alert rules read exists in a
 * real scrape, and the Dockerfile, Compose file, Kubernetes manifests and systemd unit use configuration
 * keys, ports, paths and endpoints that exist. (No Docker engine or cluster runs here; these checks and
 * review keep them right.)
 */
final class DeployAssetsTest {

    private static final Path DEPLOY = Path.of("..", "deploy");
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Set<String> PROMQL_WORDS = Set.of(
            "by",
            "without",
            "on",
            "ignoring",
            "group_left",
            "group_right",
            "bool",
            "and",
            "or",
            "unless",
            "offset",
            "inf",
            "nan");
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

    @TempDir
    Path tmp;

    /** The metric names a PromQL expression reads (functions, keywords, labels and durations left out). */
    static Set<String> metricNames(String promql) {
        String stripped = promql.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"")
                .replaceAll("\\{[^}]*}", " ")
                .replaceAll("\\[[^]]*]", " ")
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(stripped);
        while (m.find()) {
            String word = m.group();
            String after = stripped.substring(m.end()).stripLeading();
            if (!after.startsWith("(") && !PROMQL_WORDS.contains(word.toLowerCase(java.util.Locale.ROOT))) {
                names.add(word);
            }
        }
        return names;
    }

    @Test
    void extractsMetricNamesFromPromql() {
        assertThat(metricNames("sum by (le, host) (rate(mirror_upstream_requests_seconds_bucket{job=\"x\", "
                        + "outcome=~\"error|timeout\"}[5m])) / on (instance) disk_total_bytes > 0.1"))
                .containsExactly("disk_total_bytes", "mirror_upstream_requests_seconds_bucket");
    }

    /** Every metric name the shipped dashboard and alert rules read. */
    static Set<String> metricsTheAssetsRead() throws java.io.IOException {
        Set<String> used = new TreeSet<>();
        JsonNode dashboard = new ObjectMapper()
                .readTree(DEPLOY.resolve("grafana/dashboards/provider-mirror.json")
                        .toFile());
        dashboard
                .get("panels")
                .forEach(panel -> panel.get("targets")
                        .forEach(t -> used.addAll(metricNames(t.get("expr").asText()))));
        JsonNode rules = YAML.readTree(DEPLOY.resolve("prometheus/alerts.yml").toFile());
        rules.get("groups")
                .forEach(group -> group.get("rules")
                        .forEach(
                                rule -> used.addAll(metricNames(rule.get("expr").asText()))));
        // "up" is Prometheus's own series about the scrape.
        used.remove("up");
        return used;
    }

    @Test
    void everyMetricTheDashboardAndAlertsReadExistsInARealScrape() throws Exception {
        Set<String> used = metricsTheAssetsRead();
        assertThat(used).as("the assets read metrics at all").hasSizeGreaterThan(10);

        Set<String> scraped;
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.start(tmp.resolve("cache"), origin, Duration.ofMinutes(15))) {
            // A freshly started mirror after what one ordinary `terraform init` asks, nothing provoked: the
            // series the assets read exist from the start (failure counters at zero), not after a failure.
            origin.publish("acme", "seen", "1.0.0", "linux_amd64");
            assertThat(mirror.get(mirror.providerPath("acme", "seen") + "index.json")
                            .statusCode())
                    .isEqualTo(200);
            assertThat(mirror.get(mirror.providerPath("acme", "seen") + "1.0.0.json")
                            .statusCode())
                    .isEqualTo(200);
            assertThat(mirror.get(mirror.providerPath("acme", "seen") + "terraform-provider-seen_1.0.0_linux_amd64.zip")
                            .statusCode())
                    .isEqualTo(200);
            scraped = PrometheusScrape.parse(new String(mirror.get("/metrics").body(), StandardCharsets.UTF_8))
                    .names();
        }
        Set<String> missing = new TreeSet<>(used);
        missing.removeAll(scraped);
        assertThat(missing)
                .as("metrics the dashboard or alert rules read that the mirror does not export")
                .isEmpty();
    }

    @Test
    void theDockerfileUsesRealConfigurationKeysPortsAndPaths() throws Exception {
        String dockerfile = Files.readString(DEPLOY.resolve("Dockerfile"));
        Set<String> knownVariables = ConfigLoader.environmentNames().keySet();
        Matcher variables = Pattern.compile("(PROVIDER_MIRROR_[A-Z_]+)=").matcher(dockerfile);
        Map<String, String> environment = new HashMap<>();
        Matcher values = Pattern.compile("(PROVIDER_MIRROR_[A-Z_]+)=(\\S+)").matcher(dockerfile);
        while (values.find()) {
            environment.put(values.group(1), values.group(2));
        }
        int count = 0;
        while (variables.find()) {
            assertThat(knownVariables).as("Dockerfile ENV").contains(variables.group(1));
            count++;
        }
        assertThat(count).isPositive();
        MirrorConfig config = new ConfigLoader(environment).load(null);
        assertThat(dockerfile)
                .contains("EXPOSE " + config.server().port() + " "
                        + config.management().port())
                .contains("COPY --from=build /src/mirror-server/target/mirror-server.jar "
                        + "/opt/provider-mirror/lib/mirror-server.jar")
                // The launcher every message names, beside the jar as in the distribution archive, and on PATH.
                .contains("COPY mirror-server/src/dist/bin/provider-mirror /opt/provider-mirror/bin/provider-mirror")
                .contains("ln -s /opt/provider-mirror/bin/provider-mirror /usr/local/bin/provider-mirror")
                .contains("\"healthcheck\", \"--url\", \"http://127.0.0.1:"
                        + config.management().port() + "/readyz\"")
                .contains("VOLUME [\"" + config.cache().directory() + "\", \""
                        + config.server()
                                .generatedTls()
                                .directoryBeside(config.cache().directory()) + "\"]")
                .contains("USER 10001:10001");
        // The jar the image copies is the one the build names (DockerBuildContextIT builds it for real).
        assertThat(Files.readString(Path.of("pom.xml")))
                .as("mirror-server/pom.xml names the shaded jar")
                .contains("<finalName>mirror-server</finalName>");
        for (String copied : List.of(
                "pom.xml",
                "mirror-testkit/pom.xml",
                "mirror-upstream/pom.xml",
                "mirror-cache/pom.xml",
                "mirror-s3/pom.xml",
                "mirror-server/pom.xml",
                "README.md")) {
            assertThat(Path.of("..", copied)).as("COPY " + copied).exists();
        }
    }

    /**
     * The image starts from an AOT cache made by a training run while it is built: the JVM uses a cache only
     * under the options it was made with, so the run's options must be the ENTRYPOINT's; the script it runs
     * is copied from the repository, and the image's JRE is the one that reads such a cache (25 or later).
     */
    @Test
    void theImagesAotCacheIsMadeWithTheOptionsTheMirrorRunsWith() throws Exception {
        String dockerfile = Files.readString(DEPLOY.resolve("Dockerfile")).replace("\\\n", " ");
        Matcher entrypoint = Pattern.compile(
                        "(?m)^ENTRYPOINT \\[\"java\", (.*), \"-XX:AOTCache=([^\"]+)\", \"-jar\", \"([^\"]+)\"\\]$")
                .matcher(dockerfile);
        assertThat(entrypoint.find())
                .as("ENTRYPOINT java <options> -XX:AOTCache=<file> -jar <jar>")
                .isTrue();
        List<String> options = List.of(entrypoint.group(1).replace("\"", "").split(",\\s*"));
        String cache = entrypoint.group(2);
        String jar = entrypoint.group(3);

        Matcher training = Pattern.compile("(?m)^RUN (\\S+/aot-cache\\.sh) (\\S+) (\\S+) ([^&\\n]*?)\\s*(&&|$)")
                .matcher(dockerfile);
        assertThat(training.find())
                .as("RUN .../aot-cache.sh <jar> <cache> <options>")
                .isTrue();
        assertThat(training.group(2)).isEqualTo(jar);
        assertThat(training.group(3)).isEqualTo(cache);
        assertThat(List.of(training.group(4).trim().split("\\s+")))
                .as("the training run's java options")
                .isEqualTo(options);
        assertThat(dockerfile).contains("COPY deploy/aot-cache.sh " + training.group(1));
        assertThat(DEPLOY.resolve("aot-cache.sh")).isRegularFile().isExecutable();

        Matcher runtime =
                Pattern.compile("(?m)^FROM eclipse-temurin:(\\d+)-jre$").matcher(dockerfile);
        assertThat(runtime.find()).as("the runtime stage's image").isTrue();
        assertThat(Integer.parseInt(runtime.group(1)))
                .as("AOT caches need JDK 25")
                .isGreaterThanOrEqualTo(25);
    }

    @Test
    void theComposeFileReferencesFilesThatExistAndKeysThatExist() throws Exception {
        JsonNode compose = YAML.readTree(DEPLOY.resolve("compose.yaml").toFile());
        assertThat(DEPLOY.resolve(compose.at("/services/mirror/build/context").asText())
                        .resolve(compose.at("/services/mirror/build/dockerfile").asText()))
                .exists();
        compose.at("/services/mirror/environment")
                .fieldNames()
                .forEachRemaining(name -> assertThat(ConfigLoader.environmentNames())
                        .as("compose environment")
                        .containsKey(name));
        for (String service : List.of("prometheus", "grafana")) {
            compose.at("/services/" + service + "/volumes").forEach(volume -> {
                String source = volume.asText().split(":")[0];
                if (source.startsWith("./")) {
                    assertThat(DEPLOY.resolve(source)).as(service + " volume").exists();
                }
            });
        }
        assertThat(compose.at("/services/prometheus/command").toString()).contains("/etc/prometheus/prometheus.yml");
    }

    @Test
    void theImageBuildContextLeavesOutBuildOutputAndHistoryButNothingTheDockerfileCopies() throws Exception {
        Path ignore = DEPLOY.resolveSibling(".dockerignore");
        List<String> patterns = Files.readAllLines(ignore).stream()
                .map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .toList();
        assertThat(patterns).contains("**/target/", ".git/");
        for (String line : Files.readAllLines(DEPLOY.resolve("Dockerfile"))) {
            if (line.startsWith("COPY ") && !line.startsWith("COPY --from")) {
                String source = line.substring(5).strip().split("\\s+")[0];
                assertThat(patterns)
                        .as("COPY " + source + " is not ignored")
                        .noneMatch(p -> source.startsWith(p.replace("**/", "")) || source.contains("/" + p));
            }
        }
    }

    @Test
    void theComposeFleetWaitsForItsBucketAddsItsLifecycleRuleOnceAndIsScrapedWhole() throws Exception {
        JsonNode compose = YAML.readTree(DEPLOY.resolve("compose.yaml").toFile());
        List<String> mirrors = new java.util.ArrayList<>();
        compose.get("services").properties().forEach(service -> {
            if (service.getValue().path("image").asText().startsWith("provider-mirror:")) {
                mirrors.add(service.getKey());
            }
        });
        assertThat(mirrors).contains("mirror", "mirror-1", "mirror-2");
        for (String replica : List.of("mirror-1", "mirror-2")) {
            assertThat(compose.at("/services/" + replica + "/depends_on/minio-bucket/condition")
                            .asText())
                    .as(replica + " waits until the bucket exists")
                    .isEqualTo("service_completed_successfully");
        }
        String bucketScript = compose.at("/services/minio-bucket/entrypoint/2").asText();
        assertThat(bucketScript)
                .as("the lifecycle rule is added only when the bucket has none for tmp/")
                .containsPattern("mc ilm rule ls [^|]*\\|\\s*grep -q [^|]*tmp/[^|]*\\|\\|\\s*mc ilm rule add");
        JsonNode prometheus =
                YAML.readTree(DEPLOY.resolve("prometheus/prometheus.yml").toFile());
        List<String> scraped = new java.util.ArrayList<>();
        prometheus.at("/scrape_configs/0/dns_sd_configs/0/names").forEach(name -> scraped.add(name.asText()));
        prometheus
                .at("/scrape_configs/0/static_configs/0/targets")
                .forEach(target -> scraped.add(target.asText().split(":")[0]));
        assertThat(scraped).as("every mirror compose runs is scraped").containsAll(mirrors);
    }

    @Test
    void theKubernetesManifestsFitTheMirror() throws Exception {
        Map<String, JsonNode> byKind = new HashMap<>();
        try (MappingIterator<JsonNode> documents = YAML.readerFor(JsonNode.class)
                .readValues(DEPLOY.resolve("kubernetes/provider-mirror.yaml").toFile())) {
            while (documents.hasNext()) {
                JsonNode document = documents.next();
                byKind.put(document.get("kind").asText(), document);
            }
        }
        assertThat(byKind)
                .containsKeys("ConfigMap", "PersistentVolumeClaim", "Deployment", "Service")
                .as("the main manifest applies without the Prometheus Operator's CRDs")
                .doesNotContainKey("ServiceMonitor");
        JsonNode serviceMonitor = YAML.readTree(
                DEPLOY.resolve("kubernetes/provider-mirror-servicemonitor.yaml").toFile());
        assertThat(serviceMonitor.get("kind").asText()).isEqualTo("ServiceMonitor");
        byKind.put("ServiceMonitor", serviceMonitor);
        MirrorConfig config = new ConfigLoader(Map.of())
                .loadText(byKind.get("ConfigMap").at("/data/mirror.yaml").asText());

        JsonNode pod = byKind.get("Deployment").at("/spec/template/spec");
        JsonNode container = pod.get("containers").get(0);
        Map<String, Integer> ports = new HashMap<>();
        container
                .get("ports")
                .forEach(p ->
                        ports.put(p.get("name").asText(), p.get("containerPort").asInt()));
        assertThat(ports)
                .containsEntry("https", config.server().port())
                .containsEntry("management", config.management().port());
        assertThat(container.at("/readinessProbe/httpGet/path").asText()).isEqualTo("/readyz");
        assertThat(container.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/healthz");
        assertThat(container.at("/readinessProbe/httpGet/port").asText()).isEqualTo("management");
        assertThat(pod.get("terminationGracePeriodSeconds").asLong())
                .as("longer than the mirror's own grace period")
                .isGreaterThan(config.server().shutdownGracePeriod().toSeconds());
        List<String> mounts = new ArrayList<>();
        container.get("volumeMounts").forEach(m -> mounts.add(m.get("mountPath").asText()));
        assertThat(mounts)
                .contains(
                        config.cache().directory().toString(),
                        "/etc/provider-mirror/mirror.yaml",
                        config.server().tls().certificate().getParent().toString());
        assertThat(container.get("args").toString()).contains("/etc/provider-mirror/mirror.yaml");
        assertThat(byKind.get("ServiceMonitor").at("/spec/endpoints/0/path").asText())
                .isEqualTo("/metrics");
        assertThat(byKind.get("ServiceMonitor").at("/spec/endpoints/0/port").asText())
                .isEqualTo("management");
    }

    @Test
    void theSystemdUnitVerifiesAndUsesRealKeys() throws Exception {
        Path unit = DEPLOY.resolve("systemd/provider-mirror.service");
        String text = Files.readString(unit);
        Matcher variables =
                Pattern.compile("Environment=(PROVIDER_MIRROR_[A-Z_]+)=").matcher(text);
        while (variables.find()) {
            assertThat(ConfigLoader.environmentNames()).as("unit Environment").containsKey(variables.group(1));
        }
        assertThat(text)
                .contains("-jar /opt/provider-mirror/lib/mirror-server.jar --config /etc/provider-mirror/mirror.yaml")
                .contains("KillSignal=SIGTERM");
        Path analyze = ExternalTools.locateOrSkip("systemd", "systemd-analyze");
        ExternalTools.Result verify =
                ExternalTools.run(60, analyze, "verify", unit.toAbsolutePath().toString());
        assertThat(verify.exitCode()).as(verify.output()).isZero();
    }
}
