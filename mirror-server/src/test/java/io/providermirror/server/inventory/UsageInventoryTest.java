package io.providermirror.server.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.cache.CacheKey;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.FileDocumentStore;
import io.providermirror.cache.StoredDocument;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.testkit.SettableClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class UsageInventoryTest {

    private static final Instant START = Instant.parse("2026-03-01T10:00:00Z");
    private static final UsageItem AWS_5 = provider("hashicorp/aws", "5.1.0", "linux_amd64");
    private static final UsageItem AWS_4 = provider("hashicorp/aws", "4.67.0", "linux_amd64");
    private static final UsageItem VPC = UsageItem.module(
            new ModuleAddress("registry.terraform.io", "terraform-aws-modules", "vpc", "aws"), version("5.0.0"));

    @TempDir
    Path directory;

    private final SettableClock clock = new SettableClock(START);
    private CountingStore documents;

    @BeforeEach
    void store() throws IOException {
        documents = new CountingStore(new FileDocumentStore(directory, clock));
    }

    @Test
    void aFullInventorySaysWhenItLastMissedARequestSoTheFleetKnowsWhatItCannotVouchFor() throws IOException {
        UsageInventory full = new UsageInventory(documents, "a", clock, 1);
        UsageInventory other = new UsageInventory(documents, "b", clock, 100);
        full.record(AWS_5, "ci");
        full.flush();
        assertThat(other.fleetUsage().lastMissed()).as("nothing missed yet").isEmpty();

        clock.advance(Duration.ofHours(1));
        full.record(AWS_4, "ci"); // beyond maxItems: not counted
        full.flush();

        FleetUsage fleet = other.fleetUsage();
        assertThat(fleet.items()).containsOnlyKeys(AWS_5);
        assertThat(fleet.lastMissed()).contains(START.plus(Duration.ofHours(1)));
        assertThat(full.fleetUsage().lastMissed())
                .as("this instance's own misses count as now")
                .contains(clock.instant());
    }

    @Test
    void countsEachRequestWithTheFirstAndLastTimeAndTheClientNames() {
        UsageInventory inventory = new UsageInventory(documents, "a", clock, 100);
        inventory.record(AWS_5, "ci");
        clock.advance(Duration.ofMinutes(5));
        inventory.record(AWS_5, "team-a");
        inventory.record(AWS_5, "ci");
        inventory.record(VPC, "ci");

        Usage aws = inventory.local().get(AWS_5);
        assertThat(aws.first()).isEqualTo(START);
        assertThat(aws.last()).isEqualTo(START.plus(Duration.ofMinutes(5)));
        assertThat(aws.requests()).isEqualTo(3);
        assertThat(aws.clients()).isEqualTo(Map.of("ci", 2L, "team-a", 1L));
        assertThat(inventory.local().get(VPC).requests()).isEqualTo(1);
        assertThat(inventory.local()).doesNotContainKey(AWS_4);
        assertThat(inventory.lastRequested(AWS_5)).contains(START.plus(Duration.ofMinutes(5)));
        assertThat(inventory.lastRequested(AWS_4)).isEmpty();
    }

    @Test
    void recordingTouchesNoStoreUntilAFlushAndAFlushWritesOnlyWhatChanged() throws IOException {
        UsageInventory inventory = new UsageInventory(documents, "a", clock, 100);
        int readsAtStart = documents.reads.get();
        for (int i = 0; i < 1000; i++) {
            inventory.record(AWS_5, "ci");
        }
        assertThat(documents.writes.get()).isZero();
        assertThat(documents.reads.get()).isEqualTo(readsAtStart);

        inventory.flush();
        assertThat(documents.writes.get()).isEqualTo(1);
        inventory.flush();
        assertThat(documents.writes.get()).as("nothing new to write").isEqualTo(1);
        inventory.record(AWS_4, "ci");
        inventory.flush();
        assertThat(documents.writes.get()).isEqualTo(2);
    }

    @Test
    void closingWritesWhatWasCountedAndARestartedInstanceContinuesItsShard() {
        UsageInventory first = new UsageInventory(documents, "local", clock, 100);
        first.record(AWS_5, "ci");
        first.close();

        clock.advance(Duration.ofHours(1));
        UsageInventory again = new UsageInventory(documents, "local", clock, 100);
        again.record(AWS_5, "ci");
        Usage aws = again.local().get(AWS_5);
        assertThat(aws.requests()).isEqualTo(2);
        assertThat(aws.first()).isEqualTo(START);
        assertThat(aws.last()).isEqualTo(START.plus(Duration.ofHours(1)));
    }

    @Test
    void theFleetsInventoryMergesEveryInstancesShard() throws IOException {
        UsageInventory a = new UsageInventory(documents, "a", clock, 100);
        UsageInventory b = new UsageInventory(documents, "b", clock, 100);
        a.record(AWS_5, "ci");
        clock.advance(Duration.ofMinutes(1));
        b.record(AWS_5, "team-b");
        clock.advance(Duration.ofMinutes(1));
        b.record(AWS_5, "ci");
        b.record(VPC, "team-b");
        b.flush();

        Map<UsageItem, Usage> fleet = a.fleet();
        Usage aws = fleet.get(AWS_5);
        assertThat(aws.requests()).isEqualTo(3);
        assertThat(aws.first()).isEqualTo(START);
        assertThat(aws.last()).isEqualTo(START.plus(Duration.ofMinutes(2)));
        assertThat(aws.clients()).isEqualTo(Map.of("ci", 2L, "team-b", 1L));
        assertThat(fleet.get(VPC).requests()).isEqualTo(1);
        assertThat(a.lastRequested(VPC)).contains(START.plus(Duration.ofMinutes(2)));

        // Read offline, every shard merged, this instance's own shard counted once.
        a.flush();
        Map<UsageItem, Usage> stored = InventoryShards.readAll(documents, null);
        assertThat(stored.get(AWS_5).requests()).isEqualTo(3);
        assertThat(a.fleet().get(AWS_5).requests()).isEqualTo(3);
    }

    @Test
    void clientsAreLastSeenAtTheLatestSightingOfAnyInstanceOrOfThisOnesMemory() throws IOException {
        java.util.concurrent.ConcurrentHashMap<String, Instant> seenByA =
                new java.util.concurrent.ConcurrentHashMap<>(Map.of("ci", Instant.EPOCH, "team-a", Instant.EPOCH));
        java.util.concurrent.ConcurrentHashMap<String, Instant> seenByB =
                new java.util.concurrent.ConcurrentHashMap<>(Map.of("ci", Instant.EPOCH, "team-a", Instant.EPOCH));
        UsageInventory a = new UsageInventory(documents, "a", clock, 100, () -> Map.copyOf(seenByA));
        UsageInventory b = new UsageInventory(documents, "b", clock, 100, () -> Map.copyOf(seenByB));
        seenByB.put("ci", START);
        seenByB.put("team-a", START.plus(Duration.ofMinutes(9)));
        seenByA.put("ci", START.plus(Duration.ofMinutes(5)));
        b.flush(); // a sighting alone, without a download, is written
        a.flush();

        assertThat(a.clientsLastSeen())
                .as("this instance's newer sighting wins; the other's where it is newer")
                .isEqualTo(
                        Map.of("ci", START.plus(Duration.ofMinutes(5)), "team-a", START.plus(Duration.ofMinutes(9))));
        b.flush();
        assertThat(b.clientsLastSeen()).isEqualTo(a.clientsLastSeen());

        // A restart of b (memory empty again) continues its shard's sightings.
        UsageInventory restarted = new UsageInventory(
                documents, "b", clock, 100, () -> Map.of("ci", Instant.EPOCH, "team-a", Instant.EPOCH));
        assertThat(restarted.clientsLastSeen())
                .isEqualTo(Map.of("team-a", START.plus(Duration.ofMinutes(9)), "ci", START));
    }

    @Test
    void memoryHoldsAtMostMaxItemsAndCountsWhatItDropped() {
        UsageInventory inventory = new UsageInventory(documents, "a", clock, 2);
        inventory.record(AWS_5, "ci");
        inventory.record(AWS_4, "ci");
        inventory.record(VPC, "ci");
        inventory.record(AWS_5, "ci");

        assertThat(inventory.local()).containsOnlyKeys(AWS_5, AWS_4);
        assertThat(inventory.local().get(AWS_5).requests()).isEqualTo(2);
        assertThat(inventory.dropped()).isEqualTo(1);
    }

    @Test
    void anItemKeepsAtMostMaxClientsNamesAndCountsTheRestTogether() {
        UsageInventory inventory = new UsageInventory(documents, "a", clock, 100);
        for (int i = 0; i < 40; i++) {
            inventory.record(AWS_5, "client-" + i);
        }
        inventory.record(AWS_5, "client-0");

        Usage aws = inventory.local().get(AWS_5);
        assertThat(aws.clients()).hasSize(Usage.MAX_CLIENTS);
        assertThat(aws.clients().values().stream().mapToLong(Long::longValue).sum())
                .isEqualTo(41);
        assertThat(aws.clients()).containsEntry("client-0", 2L);
        assertThat(aws.clients().get(Usage.OTHER_CLIENTS)).isEqualTo(41 - 2 - (Usage.MAX_CLIENTS - 2));
    }

    /**
     * A shard that is not JSON is left out, and so are the entries of another that are not an item's: a version that
     * is none, an address that is not a provider's or a module's, a platform that is none (a provider's, or any for a
     * module). An address without a host made the warm-up after start-up fail, cutting a host out of it.
     */
    @Test
    void aBrokenShardIsLeftOutAndTheOthersStillAnswer() throws IOException {
        documents.write(CacheKey.of("_inventory", "broken.json"), "{not json".getBytes(StandardCharsets.UTF_8));
        documents.write(
                CacheKey.of("_inventory", "half.json"),
                ("{\"items\":[{\"kind\":\"module\",\"address\":\"" + VPC.address() + "\",\"version\":\"5.0.0\","
                                + "\"platform\":\"\",\"first\":\"" + START + "\",\"last\":\"" + START
                                + "\",\"requests\":2,\"clients\":{\"ci\":2}},"
                                + "{\"kind\":\"module\",\"address\":\"x\",\"version\":\"not-a-version\"},"
                                + entry("provider", "no-slash", "linux_amd64") + ","
                                + entry("provider", "h.example/a/b/c", "linux_amd64") + ","
                                + entry("provider", "h.example/a/b", "linux") + ","
                                + entry("module", "h.example/a/b", "") + ","
                                + entry("module", "h.example/a/b/c", "linux_amd64") + "]}")
                        .getBytes(StandardCharsets.UTF_8));
        UsageInventory b = new UsageInventory(documents, "b", clock, 100);
        b.record(AWS_5, "ci");
        b.flush();

        Map<UsageItem, Usage> read = InventoryShards.readAll(documents, null);
        assertThat(read).containsOnlyKeys(AWS_5, VPC);
        assertThat(read.get(VPC).requests()).isEqualTo(2);
    }

    /** A shard's entry whose version and times are valid. */
    private static String entry(String kind, String address, String platform) {
        return "{\"kind\":\"" + kind + "\",\"address\":\"" + address + "\",\"version\":\"1.0.0\",\"platform\":\""
                + platform + "\",\"first\":\"" + START + "\",\"last\":\"" + START + "\",\"requests\":1}";
    }

    private static UsageItem provider(String address, String version, String platform) {
        return UsageItem.provider(
                ProviderAddress.parse("registry.terraform.io/" + address), version(version), Platform.parse(platform));
    }

    private static ProviderVersion version(String text) {
        return ProviderVersion.parse(text).orElseThrow();
    }

    /** A store that counts what is asked of it. */
    private static final class CountingStore implements DocumentStore {
        final DocumentStore store;
        final AtomicInteger reads = new AtomicInteger();
        final AtomicInteger writes = new AtomicInteger();

        CountingStore(DocumentStore store) {
            this.store = store;
        }

        @Override
        public Optional<StoredDocument> read(CacheKey key) throws IOException {
            reads.incrementAndGet();
            return store.read(key);
        }

        @Override
        public StoredDocument write(CacheKey key, byte[] content) throws IOException {
            writes.incrementAndGet();
            return store.write(key, content);
        }

        @Override
        public List<CacheKey> list(CacheKey folder) throws IOException {
            reads.incrementAndGet();
            return store.list(folder);
        }
    }
}
