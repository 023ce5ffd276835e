package io.providermirror.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped example configuration is accepted as it is and says the defaults. */
final class DeployExampleTest {

    @Test
    void theExampleConfigurationLoadsAndMatchesTheDefaults() throws ConfigException {
        MirrorConfig example = new ConfigLoader(Map.of()).load(Path.of("..", "deploy", "mirror.example.yaml"));
        MirrorConfig defaults = MirrorConfig.defaults();
        assertThat(example).isEqualTo(defaults);
    }

    /** A line such as {@code  #   url: http://...} or {@code #     - provider: ...}: an example to uncomment. */
    private static final Pattern COMMENTED_EXAMPLE = Pattern.compile("^(\\s*)# ((\\s*)([A-Za-z][\\w.-]*:( |$)|- ).*)$");

    @Test
    void theExampleHoldsEveryKeyOfTheConfigurationModel() throws IOException {
        String uncommented = Files.readAllLines(Path.of("..", "deploy", "mirror.example.yaml")).stream()
                .filter(line -> !line.equals("  hosts: {}"))
                .map(line -> COMMENTED_EXAMPLE.matcher(line).replaceFirst("$1$2"))
                .collect(Collectors.joining("\n"));
        com.fasterxml.jackson.databind.JsonNode tree =
                new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().readTree(uncommented);
        java.util.List<String> missing = ConfigLoader.environmentNames().values().stream()
                .filter(key -> tree.at("/" + key.replace('.', '/')).isMissingNode())
                .toList();
        assertThat(missing)
                .as("keys of the configuration records that deploy/mirror.example.yaml lacks")
                .isEmpty();
    }

    @Test
    void everyCommentedExampleIsValidConfigurationToo(@TempDir Path dir) throws IOException, ConfigException {
        String uncommented = Files.readAllLines(Path.of("..", "deploy", "mirror.example.yaml")).stream()
                .filter(line -> !line.equals("  hosts: {}"))
                // The alternative to passwordFile: the two together are refused.
                .filter(line -> !line.matches("\\s*#\\s+password: .*"))
                .map(line -> COMMENTED_EXAMPLE.matcher(line).replaceFirst("$1$2"))
                .collect(Collectors.joining("\n"));
        Path file = Files.writeString(dir.resolve("uncommented.yaml"), uncommented);

        MirrorConfig config = new ConfigLoader(Map.of()).load(file);

        assertThat(config.policy().platforms()).isNotEmpty();
        assertThat(config.upstream().hosts()).containsKeys("registry.terraform.io", "tf.corp.example");
        // A pinned key is a fingerprint (40 or 64 hex digits): a 16-digit key ID is deprecated, and start-up warns.
        config.upstream()
                .hosts()
                .values()
                .forEach(host -> assertThat(host.trustedKeys())
                        .allMatch(key -> key.matches("[0-9A-F]{40}|[0-9A-F]{64}"), "a full fingerprint"));
        assertThat(config.upstream().hosts().get("registry.terraform.io").trustedKeys())
                .isNotEmpty();
        assertThat(config.upstream().proxy().url()).hasToString("http://proxy.corp:3128");
        assertThat(config.auth().enabled()).isTrue();
        assertThat(config.server().tls()).isNotNull();
    }
}
