package io.providermirror.server.purge;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.cache.BlobSummary;
import io.providermirror.cache.CacheKey;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.server.inventory.FleetUsage;
import io.providermirror.server.inventory.Usage;
import io.providermirror.server.inventory.UsageItem;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

final class FleetLastRequestedTest {

    private static final Instant USED_HERE = Instant.parse("2026-01-01T00:00:00Z");
    private static final Instant LATER = USED_HERE.plus(Duration.ofDays(10));
    private static final ProviderAddress AWS = ProviderAddress.parse("registry.terraform.io/hashicorp/aws");
    private static final ProviderVersion V5 = ProviderVersion.parse("5.1.0").orElseThrow();
    private static final Platform LINUX = Platform.parse("linux_amd64");
    private static final ModuleAddress VPC = ModuleAddress.parse("registry.terraform.io/corp/vpc/aws");
    private static final CacheKey PROVIDER_ARCHIVE = CacheLayout.archive(AWS, V5, LINUX);
    private static final CacheKey MODULE_ARCHIVE =
            CacheLayout.moduleArchive(VPC, ProviderVersion.parse("2.0.0").orElseThrow(), "tar.gz");
    private static final CacheKey OTHER = CacheKey.of("example.test", "stray.bin");
    private static final List<BlobSummary> LISTED = List.of(
            new BlobSummary(PROVIDER_ARCHIVE, 1, USED_HERE),
            new BlobSummary(MODULE_ARCHIVE, 1, USED_HERE),
            new BlobSummary(OTHER, 1, USED_HERE));

    @Test
    void anArchiveIsAsRecentAsTheLaterOfTheFleetsInventoryAndThisInstancesIndex() {
        FleetUsage fleet = new FleetUsage(
                Map.of(
                        UsageItem.provider(AWS, V5, LINUX),
                        Usage.once(LATER, "ci"),
                        // a module version as a client spelt it, with build metadata: one pin, one archive
                        UsageItem.module(VPC, ProviderVersion.parse("2.0.0+abc").orElseThrow()),
                        Usage.once(LATER, "ci")),
                Optional.empty());
        LastRequested judged = FleetLastRequested.of(fleet, LISTED, true);
        assertThat(judged.of(PROVIDER_ARCHIVE)).contains(LATER);
        assertThat(judged.of(MODULE_ARCHIVE)).contains(LATER);

        FleetUsage older = new FleetUsage(
                Map.of(UsageItem.provider(AWS, V5, LINUX), Usage.once(USED_HERE.minusSeconds(60), "ci")),
                Optional.empty());
        assertThat(FleetLastRequested.of(older, LISTED, true).of(PROVIDER_ARCHIVE))
                .as("this instance used it later than the inventory says")
                .contains(USED_HERE);
        assertThat(FleetLastRequested.of(older, LISTED, true).of(MODULE_ARCHIVE))
                .as("no instance counted it and none missed a request: this instance's index")
                .contains(USED_HERE);
    }

    @Test
    void whatTheInventoryCannotVouchForIsTakenAtItsLatestPossibleTimeOrNotJudged() {
        FleetUsage missed = new FleetUsage(Map.of(), Optional.of(LATER));
        assertThat(FleetLastRequested.of(missed, LISTED, true).of(PROVIDER_ARCHIVE))
                .as("an instance whose memory was full may have served it as late as it last missed a request")
                .contains(LATER);

        FleetUsage complete = new FleetUsage(Map.of(), Optional.empty());
        assertThat(FleetLastRequested.of(complete, LISTED, true).of(OTHER))
                .as("on a bucket, an archive no inventory item names is not judged: kept")
                .isEmpty();
        assertThat(FleetLastRequested.of(complete, LISTED, false).of(OTHER))
                .as("on its own directory the index is the whole record")
                .contains(USED_HERE);
    }
}
