package io.providermirror.server.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.cache.FileDocumentStore;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.inventory.UsageInventory;
import io.providermirror.server.inventory.UsageItem;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which cached releases the warm-up after start-up reads into memory, and in which order. */
final class CachedReleasesAheadTest {

    @TempDir
    Path tmp;

    private static final Platform LINUX = Platform.parse("linux_amd64");
    private static final Platform DARWIN = Platform.parse("darwin_arm64");

    @Test
    void theProviderVersionsWithTheMostRequestsOverEveryPlatformComeFirstAndModulesNever() throws Exception {
        UsageInventory inventory =
                new UsageInventory(new FileDocumentStore(tmp, Clock.systemUTC()), "local", Clock.systemUTC(), 1000);
        ProviderAddress aws = ProviderAddress.parse("example.test/acme/aws");
        ProviderVersion one = new ProviderVersion("1.0.0");
        ProviderVersion two = new ProviderVersion("2.0.0");
        record(inventory, UsageItem.provider(aws, one, LINUX), 2);
        record(inventory, UsageItem.provider(aws, one, DARWIN), 2);
        record(inventory, UsageItem.provider(aws, two, LINUX), 3);
        record(inventory, UsageItem.module(ModuleAddress.parse("example.test/acme/net/aws"), one), 9);

        assertThat(CachedReleasesAhead.mostRequested(inventory.fleet()))
                .containsExactly(new CachedReleasesAhead.Release(aws, one), new CachedReleasesAhead.Release(aws, two));
    }

    @Test
    void noMoreThanTheBoundAreRead() throws Exception {
        UsageInventory inventory =
                new UsageInventory(new FileDocumentStore(tmp, Clock.systemUTC()), "local", Clock.systemUTC(), 1000);
        ProviderAddress aws = ProviderAddress.parse("example.test/acme/aws");
        for (int minor = 0; minor <= CachedReleasesAhead.MAX_RELEASES; minor++) {
            record(inventory, UsageItem.provider(aws, new ProviderVersion("1." + minor + ".0"), LINUX), minor + 1);
        }

        assertThat(CachedReleasesAhead.mostRequested(inventory.fleet()))
                .hasSize(CachedReleasesAhead.MAX_RELEASES)
                .first()
                .isEqualTo(new CachedReleasesAhead.Release(
                        aws, new ProviderVersion("1." + CachedReleasesAhead.MAX_RELEASES + ".0")));
        assertThat(CachedReleasesAhead.mostRequested(inventory.fleet()))
                .doesNotContain(new CachedReleasesAhead.Release(aws, new ProviderVersion("1.0.0")));
    }

    private static void record(UsageInventory inventory, UsageItem item, int requests) {
        for (int i = 0; i < requests; i++) {
            inventory.record(item, "client");
        }
    }
}
