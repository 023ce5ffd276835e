package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.testkit.ExternalTools;
import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOrigin;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real update bot inside a closed network: Renovate (from the npm registry; {@code .ci/run} installs it), on its
 * local platform with a dry run, reads a {@code main.tf} that pins providers and registry modules at their older
 * versions (sources naming the origin host {@code example.test}, and sources naming no host, which are the public
 * registry's) and reports the newer ones, having asked nothing but the mirror: its only registry URLs are
 * {@code https://127.0.0.1:<port>/registry/<host>} (it finds the mirror's services there through the host's
 * discovery document), it has the mirror's token and no code host's, and its proxy is a port that records
 * connections and answers none. The origin serves both hosts and is reached only by the mirror. Skipped, loudly,
 * when Node.js or Renovate cannot be found.
 */
final class RenovateIT {

    /**
     * The newest Renovate whose {@code engines.node} accepts Node.js 20 ({@code ^20.15.1 || ^22.11.0}); 40 and later
     * want Node.js 22 or 24. {@code .ci/run} installs the same version.
     */
    static final String VERSION = "39.264.1";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PUBLIC_REGISTRY = "registry.terraform.io";
    private static final String TOKEN = "renovate-s3cret";

    @TempDir
    static Path tmp;

    private static FakeOrigin origin;
    private static MirrorFixture mirror;
    private static DeadProxy proxy;

    @BeforeAll
    static void start() throws IOException {
        origin = FakeOrigin.start(tmp.resolve("origin"));
        FakeModuleRegistry modules = FakeModuleRegistry.of(origin);
        for (String version : List.of("1.0.0", "1.1.0", "2.0.0", "2.1.0")) {
            String provider = version.startsWith("1.") ? "widget" : "gadget";
            String module = version.startsWith("1.") ? "network" : "storage";
            origin.publish("acme", provider, version, "linux_amd64");
            modules.publish(
                    "acme",
                    module,
                    "aws",
                    version,
                    modules.archiveUrl("/archives/" + module + "-" + version + ".tar.gz")
                            .toString());
        }
        // The same origin stands for the public registry too, for the sources that name no host.
        Map<String, Object> discovery =
                Map.of("discoveryUrl", origin.discoveryUrl().toString());
        mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                .set("cache.indexTtl", "15m")
                .set("upstream.hosts", Map.of(MirrorFixture.HOST, discovery, PUBLIC_REGISTRY, discovery))
                .set("auth.tokens", List.of(MirrorAuth.hash(TOKEN)))
                .start();
        proxy = DeadProxy.start();
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (mirror != null) {
            mirror.close();
        }
        if (origin != null) {
            origin.close();
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void renovateFindsTheNewerProviderAndModuleThroughTheMirrorAlone() throws Exception {
        Path node = ExternalTools.locateOrSkip("nodejs", "node");
        Path renovate = locateRenovateOrSkip();
        Path repository = repository();
        String mirrorUrl = "https://127.0.0.1:" + mirror.mirror.port();
        Path config = Files.writeString(tmp.resolve("renovate.json"), renovateConfig(mirrorUrl));
        Path log = tmp.resolve("renovate.log");

        Process process =
                renovateProcess(node, renovate, repository, config, log).start();
        boolean finished = process.waitFor(9, TimeUnit.MINUTES);
        if (!finished) {
            process.destroyForcibly();
        }
        List<JsonNode> records = records(log);
        String context = "Renovate's log:\n"
                + String.join("\n", records.stream().map(JsonNode::toString).toList());

        assertThat(finished).as("Renovate finished within 9 minutes").isTrue();
        assertThat(process.exitValue()).as(context).isZero();
        assertThat(proxy.connections())
                .as(context + "\nconnections Renovate tried outside the mirror (through its proxy)")
                .isEmpty();
        Map<String, List<String>> updates = updatesByDependency(records);
        assertThat(updates)
                .as(context)
                .containsEntry("example.test/acme/network/aws", List.of("1.1.0"))
                .containsEntry("widget", List.of("1.1.0"))
                .containsEntry("acme/storage/aws", List.of("2.1.0"))
                .containsEntry("gadget", List.of("2.1.0"));
        // It asked the mirror, and the mirror asked the origin.
        assertThat(origin.requestsMatching("/v1/modules/acme/network/aws/versions"))
                .isPositive();
        assertThat(origin.requestsMatching("/v1/providers/acme/widget/versions"))
                .isPositive();
        assertThat(origin.requestsMatching("/v1/modules/acme/storage/aws/versions"))
                .isPositive();
        assertThat(origin.requestsMatching("/v1/providers/acme/gadget/versions"))
                .isPositive();
    }

    /** {@code RENOVATE_BIN}, else where {@code .ci/run} installs it; or a skipped test that says how to get it. */
    private static Path locateRenovateOrSkip() {
        String explicit = System.getenv("RENOVATE_BIN");
        Path candidate = explicit != null && !explicit.isBlank()
                ? Path.of(explicit)
                : Path.of(System.getProperty("user.home"), ".cache", "provider-mirror", "renovate-" + VERSION)
                        .resolve("node_modules/.bin/renovate");
        if (!Files.isRegularFile(candidate)) {
            String reason = "SKIPPED: no Renovate at " + candidate
                    + " (RENOVATE_BIN or .ci/run's install). Run .ci/run, "
                    + "or: npm install --prefix ~/.cache/provider-mirror/renovate-" + VERSION + " renovate@" + VERSION;
            System.err.println("\n!!!!!!!! " + reason + "\n");
            Assumptions.abort(reason);
        }
        return candidate;
    }

    /** A git repository holding a {@code main.tf} that pins the older provider and module, committed. */
    private static Path repository() throws Exception {
        Path repository = Files.createDirectories(tmp.resolve("repository"));
        Files.writeString(repository.resolve("main.tf"), """
                terraform {
                  required_providers {
                    widget = {
                      source  = "%1$s/acme/widget"
                      version = "1.0.0"
                    }
                    gadget = {
                      source  = "acme/gadget"
                      version = "2.0.0"
                    }
                  }
                }

                module "network" {
                  source  = "%1$s/acme/network/aws"
                  version = "1.0.0"
                }

                module "storage" {
                  source  = "acme/storage/aws"
                  version = "2.0.0"
                }
                """.formatted(MirrorFixture.HOST));
        try (Git git = Git.init()
                .setDirectory(repository.toFile())
                .setInitialBranch("main")
                .call()) {
            git.add().addFilepattern("main.tf").call();
            git.commit()
                    .setMessage("pin the widget provider and the network module")
                    .setAuthor("author", "author@example.test")
                    .setCommitter("author", "author@example.test")
                    .setSign(false)
                    .call();
        }
        return repository;
    }

    /**
     * The configuration the manual shows: for dependencies whose source names the origin host (Renovate keeps that
     * host as their registry URL), the mirror's URL for that host instead; for modules also the package name without
     * the host, since Renovate asks the host a module source names rather than the configured registry URL; for
     * sources that name no host, the mirror's URL for the public registry; and the mirror's token for the mirror.
     */
    static String renovateConfig(String mirrorUrl) {
        String registryUrl = mirrorUrl + "/registry/" + MirrorFixture.HOST;
        ObjectNode config = JSON.createObjectNode()
                .put("platform", "local")
                .put("dryRun", "lookup")
                .put("onboarding", false)
                .put("requireConfig", "optional");
        config.putArray("enabledManagers").add("terraform");
        ArrayNode rules = config.putArray("packageRules");
        ObjectNode route = rules.addObject();
        route.putArray("matchDatasources").add("terraform-module").add("terraform-provider");
        route.putArray("matchJsonata").add("'https://" + MirrorFixture.HOST + "' in registryUrls");
        route.putArray("registryUrls").add(registryUrl);
        ObjectNode module = rules.addObject();
        module.putArray("matchDatasources").add("terraform-module");
        module.putArray("matchPackageNames").add(MirrorFixture.HOST + "/**");
        module.put(
                "overridePackageName",
                "{{{replace '^" + MirrorFixture.HOST.replace(".", "\\.") + "/' '' packageName}}}");
        ObjectNode hostless = rules.addObject();
        hostless.putArray("matchDatasources").add("terraform-module").add("terraform-provider");
        hostless.putArray("matchJsonata").add("registryUrls = null or $count(registryUrls) = 0");
        hostless.putArray("registryUrls").add(mirrorUrl + "/registry/" + PUBLIC_REGISTRY);
        config.putArray("hostRules").addObject().put("matchHost", "127.0.0.1").put("token", TOKEN);
        return config.toPrettyString();
    }

    /** Renovate in {@code repository} with a clean environment: no code host's token, no network but the mirror. */
    private static ProcessBuilder renovateProcess(Path node, Path renovate, Path repository, Path config, Path log)
            throws IOException {
        ProcessBuilder builder = new ProcessBuilder(node.toString(), renovate.toString())
                .directory(repository.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        Map<String, String> environment = builder.environment();
        environment.clear();
        String deadProxy = "http://127.0.0.1:" + proxy.port();
        environment.putAll(Map.of(
                // git for `git ls-files`, the local platform's file list.
                "PATH", node.getParent() + ":/usr/bin:/bin",
                "HOME", Files.createDirectories(tmp.resolve("home")).toString(),
                "RENOVATE_CONFIG_FILE", config.toString(),
                "RENOVATE_BASE_DIR",
                        Files.createDirectories(tmp.resolve("renovate-base")).toString(),
                "NODE_EXTRA_CA_CERTS",
                        mirror.mirror.generatedCaFile().orElseThrow().toString(),
                "LOG_FORMAT", "json",
                "LOG_LEVEL", "debug"));
        environment.putAll(Map.of(
                "HTTP_PROXY", deadProxy,
                "HTTPS_PROXY", deadProxy,
                "NO_PROXY", "127.0.0.1",
                "GIT_CONFIG_NOSYSTEM", "1",
                "RENOVATE_X_IGNORE_NODE_WARN", "true"));
        return builder;
    }

    /** Renovate's JSON log, a record a line (anything else it printed is kept as text). */
    private static List<JsonNode> records(Path log) throws IOException {
        List<JsonNode> records = new ArrayList<>();
        if (!Files.exists(log)) {
            return records;
        }
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            try {
                records.add(JSON.readTree(line));
            } catch (IOException e) {
                records.add(JSON.getNodeFactory().textNode(line));
            }
        }
        return records;
    }

    /** The new versions Renovate proposes, by dependency name, from its "packageFiles with updates" record. */
    private static Map<String, List<String>> updatesByDependency(List<JsonNode> records) {
        Map<String, List<String>> updates = new TreeMap<>();
        Optional<JsonNode> found = records.stream()
                .filter(record ->
                        "packageFiles with updates".equals(record.path("msg").asText()))
                .findFirst();
        found.ifPresent(record -> {
            for (JsonNode packageFile : record.path("config").path("terraform")) {
                for (JsonNode dependency : packageFile.path("deps")) {
                    List<String> versions = new ArrayList<>();
                    dependency
                            .path("updates")
                            .forEach(update ->
                                    versions.add(update.path("newVersion").asText()));
                    updates.put(dependency.path("depName").asText(), versions);
                }
            }
        });
        return updates;
    }

    /**
     * The proxy Renovate is given: it accepts connections on 127.0.0.1, records them and closes them, so anything
     * Renovate tries beyond the mirror fails and is seen.
     */
    private static final class DeadProxy implements AutoCloseable {
        private final ServerSocket socket;
        private final List<String> connections = new CopyOnWriteArrayList<>();

        private DeadProxy(ServerSocket socket) {
            this.socket = socket;
        }

        static DeadProxy start() throws IOException {
            DeadProxy proxy = new DeadProxy(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
            Thread thread = new Thread(proxy::accept, "dead-proxy");
            thread.setDaemon(true);
            thread.start();
            return proxy;
        }

        private void accept() {
            while (!socket.isClosed()) {
                try (Socket connection = socket.accept()) {
                    connection.setSoTimeout(2000);
                    byte[] head = new byte[200];
                    int read = connection.getInputStream().read(head);
                    connections.add(
                            read <= 0
                                    ? "(nothing sent)"
                                    : new String(head, 0, read, StandardCharsets.ISO_8859_1)
                                            .lines()
                                            .findFirst()
                                            .orElse(""));
                } catch (IOException e) {
                    if (!socket.isClosed()) {
                        connections.add("(connection failed: " + e.getMessage() + ")");
                    }
                }
            }
        }

        int port() {
            return socket.getLocalPort();
        }

        List<String> connections() {
            return List.copyOf(connections);
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
