package io.providermirror.server.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.cache.FileDocumentStore;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sightings.json} written by two instances of a fleet on one store: a write merges with what is stored, the
 * earliest time per version winning, so no instance moves a first-seen time later or drops a version another saw.
 */
final class SightingsMergeTest {

    private static final ProviderAddress PROVIDER = ProviderAddress.parse("registry.terraform.io/hashicorp/aws");
    private static final ModuleAddress MODULE = new ModuleAddress("example.test", "corp", "net", "aws");
    private static final ProviderVersion V1 = ProviderVersion.parse("1.0.0").orElseThrow();
    private static final ProviderVersion V2 = ProviderVersion.parse("2.0.0").orElseThrow();
    private static final ProviderVersion V3 = ProviderVersion.parse("3.0.0").orElseThrow();
    private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");

    @TempDir
    Path root;

    /** Two instances' documents over one store, as a fleet's over one bucket. */
    private CacheDocuments instance() throws IOException {
        return new CacheDocuments(new FileDocumentStore(root, Clock.systemUTC()));
    }

    @Test
    void aLaterWriteFromAnInstanceThatReadBeforeKeepsTheOtherInstancesEarlierFirstSighting() throws IOException {
        CacheDocuments a = instance();
        CacheDocuments b = instance();
        a.writeSightings(PROVIDER, VersionSightings.update(Optional.empty(), List.of(V1), T0));

        // Both refresh the list at once: each read the stored sightings before the other wrote.
        Optional<VersionSightings> readByA = a.sightings(PROVIDER);
        Optional<VersionSightings> readByB = b.sightings(PROVIDER);
        Instant seenByB = T0.plusSeconds(60);
        Instant seenByA = T0.plusSeconds(3_600);
        b.writeSightings(PROVIDER, VersionSightings.update(readByB, List.of(V1, V2), seenByB));
        VersionSightings storedByA =
                a.writeSightings(PROVIDER, VersionSightings.update(readByA, List.of(V1, V2, V3), seenByA));

        VersionSightings stored = b.sightings(PROVIDER).orElseThrow();
        assertThat(stored.firstSeen(V2)).as("B saw 2.0.0 first").contains(seenByB);
        assertThat(stored.firstSeen(V3)).contains(seenByA);
        assertThat(stored.versions().get(V1)).as("in the first list").isEmpty();
        assertThat(stored.listedSince()).isEqualTo(T0);
        assertThat(storedByA).as("what A goes on with is what was stored").isEqualTo(stored);
    }

    @Test
    void aModulesSightingsMergeAsAProvidersDo() throws IOException {
        CacheDocuments a = instance();
        CacheDocuments b = instance();
        Instant early = T0.plusSeconds(10);
        b.writeSightings(
                MODULE, new VersionSightings(T0, Map.of(V1, Optional.empty(), V2, Optional.of(early)), Map.of()));
        a.writeSightings(
                MODULE,
                new VersionSightings(T0, Map.of(V1, Optional.empty(), V2, Optional.of(T0.plusSeconds(99))), Map.of()));
        assertThat(b.sightings(MODULE).orElseThrow().firstSeen(V2)).contains(early);
    }

    @Test
    void theEarliestListWinsAndAVersionOfALaterFirstListKeepsThatListsTime() {
        Instant later = T0.plusSeconds(500);
        VersionSightings first = new VersionSightings(
                T0, Map.of(V1, Optional.empty(), V2, Optional.of(T0.plusSeconds(900))), Map.of(V2, T0));
        VersionSightings second =
                new VersionSightings(later, Map.of(V1, Optional.empty(), V2, Optional.empty()), Map.of());
        VersionSightings merged = second.merge(first);
        assertThat(merged.listedSince()).isEqualTo(T0);
        assertThat(merged.versions().get(V1)).isEmpty();
        assertThat(merged.firstSeen(V2))
                .as("in the second instance's first list, at " + later + ": earlier than the first's sighting")
                .contains(later);
        assertThat(merged.signed()).containsEntry(V2, T0);
        assertThat(first.merge(second)).isEqualTo(merged);
    }
}
