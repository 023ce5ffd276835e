package io.providermirror.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The shipped example configuration is accepted as it is and says the defaults. */
final class DeployExampleTest {

    @Test
    void theExampleConfigurationLoadsAndMatchesTheDefaults() throws ConfigException {
        MirrorConfig example = new ConfigLoader(Map.of()).load(Path.of("..", "deploy", "mirror.example.yaml"));
        MirrorConfig defaults = MirrorConfig.defaults();
        assertThat(example).isEqualTo(defaults);
    }
}
