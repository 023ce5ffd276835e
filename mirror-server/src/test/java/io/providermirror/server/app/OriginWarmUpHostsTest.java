package io.providermirror.server.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.cache.FileDocumentStore;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.inventory.UsageInventory;
import io.providermirror.server.inventory.UsageItem;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which origins the warm-up after start-up asks, and in which order. */
final class OriginWarmUpHostsTest {

    @TempDir
    Path tmp;

    @Test
    void theConfiguredHostsComeFirstThenTheInventorysByRequestsAndNoneReachedThroughAParentMirror() throws Exception {
        MirrorConfig config = new ConfigLoader(Map.of())
                .loadText("{\"upstream\":{\"hosts\":{"
                        + "\"zeta.example\":{\"discoveryUrl\":\"https://127.0.0.1:1/\"},"
                        + "\"parent.example\":{\"mirrorUrl\":\"https://127.0.0.1:2/\"}}}}");
        UsageInventory inventory =
                new UsageInventory(new FileDocumentStore(tmp, Clock.systemUTC()), "local", Clock.systemUTC(), 1000);
        ProviderVersion one = new ProviderVersion("1.0.0");
        Platform linux = Platform.parse("linux_amd64");
        record(inventory, UsageItem.provider(ProviderAddress.parse("less.example/acme/a"), one, linux), 2);
        record(inventory, UsageItem.module(ModuleAddress.parse("most.example/acme/net/aws"), one), 3);
        record(inventory, UsageItem.provider(ProviderAddress.parse("most.example/acme/b"), one, linux), 1);
        record(inventory, UsageItem.provider(ProviderAddress.parse("parent.example/acme/c"), one, linux), 9);
        record(inventory, UsageItem.provider(ProviderAddress.parse("zeta.example/acme/d"), one, linux), 1);

        assertThat(OriginWarmUp.expectedHosts(config, inventory.fleet()))
                .containsExactly("zeta.example", "most.example", "less.example");
    }

    private static void record(UsageInventory inventory, UsageItem item, int requests) {
        for (int i = 0; i < requests; i++) {
            inventory.record(item, "client");
        }
    }
}
