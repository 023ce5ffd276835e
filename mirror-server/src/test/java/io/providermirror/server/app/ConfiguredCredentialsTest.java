package io.providermirror.server.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.model.ProviderAddress;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.upstream.OriginCredentials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tokens from the CLI's credentials file are found by the hostname as provider and module addresses spell it (lower
 * case, without {@code :443}), as the keys of {@code upstream.hosts} are: for the token, and for the host's own lane.
 */
final class ConfiguredCredentialsTest {

    @TempDir
    Path tmp;

    @Test
    void aCredentialsFileHostWithTheDefaultPortIsFoundByTheAddressesSpelling() throws Exception {
        Path file = Files.writeString(
                tmp.resolve("credentials.tfrc.json"),
                "{\"credentials\": {\"private.example:443\": {\"token\": \"t\"}}}");
        MirrorConfig config = new ConfigLoader(Map.of())
                .loadText("cache:\n  directory: " + tmp.resolve("cache") + "\nupstream:\n  terraformCredentials: "
                        + file + "\n");
        OriginCredentials tokens = ConfiguredCredentials.load(config.upstream());

        String laneKey = ProviderAddress.parse("private.example:443/acme/p").hostname();
        assertThat(laneKey).isEqualTo("private.example");
        assertThat(tokens.tokenFor(laneKey))
                .as("the token (and so the own lane) of %s, as the credentials file spells it with :443", laneKey)
                .isPresent();
    }
}
