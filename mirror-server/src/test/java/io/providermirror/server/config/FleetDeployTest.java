package io.providermirror.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The deployments of several instances on one bucket (deploy/): the Compose profile {@code fleet} (MinIO, two
 * replicas, a load balancer) and the Kubernetes variant (three replicas, S3 settings from a Secret, an HPA) set
 * only real configuration keys, and their configuration puts the cache in the bucket.
 */
final class FleetDeployTest {

    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Path DEPLOY = Path.of("..", "deploy");

    @Test
    void theComposeFleetProfileRunsTwoReplicasOnMinioBehindABalancer() throws Exception {
        JsonNode services =
                YAML.readTree(DEPLOY.resolve("compose.yaml").toFile()).get("services");
        for (String replica : List.of("mirror-1", "mirror-2")) {
            JsonNode service = services.get(replica);
            assertThat(service.get("profiles").toString()).contains("fleet");
            Map<String, String> environment = new HashMap<>();
            service.get("environment")
                    .properties()
                    .forEach(e -> environment.put(e.getKey(), e.getValue().asText()));
            environment.keySet().stream()
                    .filter(name -> name.startsWith(ConfigLoader.ENV_PREFIX))
                    .forEach(name -> assertThat(ConfigLoader.environmentNames())
                            .as(replica + " environment")
                            .containsKey(name));
            assertThat(environment)
                    .containsEntry("PROVIDER_MIRROR_CACHE_S3_ENDPOINT", "http://minio:9000")
                    .containsKeys("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY");
            MirrorConfig config = new ConfigLoader(environment).load(null);
            assertThat(config.cache().s3().bucket()).isEqualTo("provider-mirror");
            assertThat(config.cache().s3().pathStyleAccess()).isTrue();
            assertThat(config.server().tls())
                    .as("one certificate for every replica")
                    .isNotNull();
        }
        assertThat(services.at("/minio/profiles").toString()).contains("fleet");
        JsonNode balancer = services.get("balancer");
        balancer.get("volumes").forEach(volume -> {
            String source = volume.asText().split(":")[0];
            assertThat(DEPLOY.resolve(source)).as("balancer volume").exists();
        });
    }

    @Test
    void theKubernetesFleetRunsThreeReplicasOnTheBucketWithAnAutoscaler() throws Exception {
        Map<String, JsonNode> byKind = new HashMap<>();
        try (MappingIterator<JsonNode> documents = YAML.readerFor(JsonNode.class)
                .readValues(
                        DEPLOY.resolve("kubernetes/provider-mirror-fleet.yaml").toFile())) {
            while (documents.hasNext()) {
                JsonNode document = documents.next();
                byKind.put(document.get("kind").asText(), document);
            }
        }
        assertThat(byKind).containsKeys("Secret", "ConfigMap", "Deployment", "HorizontalPodAutoscaler", "Service");
        Map<String, String> environment = new HashMap<>();
        byKind.get("Secret")
                .get("stringData")
                .properties()
                .forEach(e -> environment.put(e.getKey(), e.getValue().asText()));
        JsonNode container = byKind.get("Deployment").at("/spec/template/spec/containers/0");
        container
                .get("env")
                .forEach(e ->
                        environment.put(e.get("name").asText(), e.get("value").asText()));
        environment.keySet().stream()
                .filter(name -> name.startsWith(ConfigLoader.ENV_PREFIX))
                .forEach(name -> assertThat(ConfigLoader.environmentNames())
                        .as("fleet environment")
                        .containsKey(name));
        assertThat(container.at("/envFrom/0/secretRef/name").asText())
                .isEqualTo(byKind.get("Secret").at("/metadata/name").asText());

        MirrorConfig config = new ConfigLoader(environment)
                .loadText(byKind.get("ConfigMap").at("/data/mirror.yaml").asText());
        assertThat(config.cache().s3().bucket()).isEqualTo("provider-mirror");
        assertThat(config.cache().s3().endpoint()).hasToString("https://minio.corp.example:9000");
        assertThat(config.auth().urlSigningKeyFile())
                .as("shared by every replica")
                .isNotNull();

        // The memory limit holds the heap (75% of it, the image's -XX:MaxRAMPercentage), direct buffers capped
        // below the rest, and about 200Mi of metaspace, code cache and stacks; the local tier fits its emptyDir.
        long limit = kubernetesBytes(container.at("/resources/limits/memory").asText());
        java.util.regex.Matcher direct = java.util.regex.Pattern.compile("-XX:MaxDirectMemorySize=(\\d+)m")
                .matcher(environment.getOrDefault("JAVA_TOOL_OPTIONS", ""));
        assertThat(direct.find())
                .as("direct buffers capped in JAVA_TOOL_OPTIONS")
                .isTrue();
        assertThat(limit * 3 / 4 + Long.parseLong(direct.group(1)) * MIB + 200 * MIB)
                .as("heap + direct buffers + the JVM's own memory")
                .isLessThanOrEqualTo(limit);
        JsonNode cacheVolume = null;
        for (JsonNode volume : byKind.get("Deployment").at("/spec/template/spec/volumes")) {
            if (volume.get("name").asText().equals("cache")) {
                cacheVolume = volume;
            }
        }
        assertThat(cacheVolume).isNotNull();
        assertThat(config.cache().s3().localTierSize().bytes())
                .as("the local tier, with room for fills in progress and documents, in its emptyDir")
                .isLessThan(
                        kubernetesBytes(cacheVolume.at("/emptyDir/sizeLimit").asText()) * 4 / 5);

        assertThat(byKind.get("Deployment").at("/spec/replicas").asInt()).isEqualTo(3);
        assertThat(byKind.get("HorizontalPodAutoscaler")
                        .at("/spec/scaleTargetRef/name")
                        .asText())
                .isEqualTo(byKind.get("Deployment").at("/metadata/name").asText());
        assertThat(byKind.get("HorizontalPodAutoscaler").at("/spec/minReplicas").asInt())
                .isEqualTo(3);
    }

    private static final long MIB = 1024 * 1024;

    /** A Kubernetes quantity in Mi or Gi, in bytes. */
    private static long kubernetesBytes(String quantity) {
        if (quantity.endsWith("Gi")) {
            return Long.parseLong(quantity.substring(0, quantity.length() - 2)) * 1024 * MIB;
        }
        assertThat(quantity).endsWith("Mi");
        return Long.parseLong(quantity.substring(0, quantity.length() - 2)) * MIB;
    }
}
