package io.providermirror.server.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.cache.CacheKey;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.FileDocumentStore;
import io.providermirror.cache.FillLeases;
import io.providermirror.cache.StoredDocument;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.testkit.SettableClock;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class InventoryCompactionTest {

    private static final Instant START = Instant.parse("2026-03-01T10:00:00Z");
    private static final Duration STALE_AFTER = Duration.ofHours(1);
    private static final UsageItem AWS = UsageItem.provider(
            ProviderAddress.parse("registry.terraform.io/hashicorp/aws"),
            ProviderVersion.parse("5.1.0").orElseThrow(),
            Platform.parse("linux_amd64"));

    @TempDir
    Path directory;

    private final SettableClock clock = new SettableClock(START);

    @Test
    void staleShardsAreFoldedIntoTheRetiredTotalsOnceAndTheLiveOneStays() throws IOException {
        DocumentStore documents = twoGoneShards();
        UsageInventory live = counted(documents, "live", 5);
        assertThat(requests(documents)).isEqualTo(10);

        InventoryCompaction compaction = new InventoryCompaction(documents, FillLeases.local(), clock, STALE_AFTER);
        assertThat(compaction.compact()).isEqualTo(2);
        assertThat(documents.list(InventoryShards.FOLDER))
                .containsExactlyInAnyOrder(InventoryCompaction.RETIRED, InventoryShards.key("live"));
        assertThat(requests(documents)).isEqualTo(10);
        assertThat(compaction.compact()).as("nothing stale left").isZero();

        clock.advance(Duration.ofHours(2));
        assertThat(compaction.compact()).as("the live shard, now stale too").isEqualTo(1);
        assertThat(requests(documents)).isEqualTo(10);
        live.close();
    }

    @Test
    void aCompactionStoppedBeforeItDeletedTheShardsCountsThemOnceAndTheNextOneFinishes() throws IOException {
        DocumentStore files = twoGoneShards();
        DocumentStore failingDeletes = new DocumentStore() {
            @Override
            public Optional<StoredDocument> read(CacheKey key) throws IOException {
                return files.read(key);
            }

            @Override
            public StoredDocument write(CacheKey key, byte[] content) throws IOException {
                return files.write(key, content);
            }

            @Override
            public List<CacheKey> list(CacheKey folder) throws IOException {
                return files.list(folder);
            }
        };

        assertThatThrownBy(
                        () -> new InventoryCompaction(failingDeletes, FillLeases.local(), clock, STALE_AFTER).compact())
                .isInstanceOf(IOException.class);
        assertThat(files.list(InventoryShards.FOLDER)).hasSize(3);
        assertThat(requests(files))
                .as("the shards the totals hold are left out")
                .isEqualTo(5);

        assertThat(new InventoryCompaction(files, FillLeases.local(), clock, STALE_AFTER).compact())
                .isEqualTo(2);
        assertThat(files.list(InventoryShards.FOLDER)).containsExactly(InventoryCompaction.RETIRED);
        assertThat(requests(files)).as("a second fold of a shard adds nothing").isEqualTo(5);
    }

    @Test
    void fieldsOfAShardThisVersionDoesNotKnowAreCarriedTimesAsTheLatest() throws IOException {
        DocumentStore documents = new FileDocumentStore(directory, clock);
        shard(documents, "old-1", "2026-02-01T00:00:00Z", "2026-02-20T00:00:00Z");
        shard(documents, "old-2", "2026-02-25T00:00:00Z", "2026-02-10T00:00:00Z");
        clock.advance(Duration.ofHours(2));

        assertThat(new InventoryCompaction(documents, FillLeases.local(), clock, STALE_AFTER).compact())
                .isEqualTo(2);
        var retired = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(documents
                        .read(InventoryCompaction.RETIRED)
                        .orElseThrow()
                        .content());
        assertThat(retired.path("clientsLastSeen").path("ci").asText()).isEqualTo("2026-02-25T00:00:00Z");
        assertThat(retired.path("clientsLastSeen").path("team").asText()).isEqualTo("2026-02-20T00:00:00Z");
        assertThat(requests(documents)).isEqualTo(2);
    }

    @Test
    void anInstanceWhoseShardWasRetiredWhileItRanCountsOnUnderANewNameWithoutCountingTwice() throws IOException {
        DocumentStore documents = new FileDocumentStore(directory, clock);
        UsageInventory cutOff = counted(documents, "cut-off", 2);
        cutOff.start(Duration.ofHours(1)); // rewrites every 10 hours; its own thread's first flush is an hour away
        clock.advance(Duration.ofHours(61));
        assertThat(new InventoryCompaction(documents, FillLeases.local(), clock, Duration.ofHours(60)).compact())
                .isEqualTo(1);

        cutOff.record(AWS, "ci");
        cutOff.record(AWS, "ci");
        cutOff.record(AWS, "ci");
        cutOff.flush();
        assertThat(requests(documents)).isEqualTo(5);
        assertThat(documents.list(InventoryShards.FOLDER)).hasSize(2).contains(InventoryCompaction.RETIRED);
        cutOff.close();
    }

    /** A store with the shards of two instances that wrote 2 and 3 requests two hours ago. */
    private DocumentStore twoGoneShards() throws IOException {
        DocumentStore documents = new FileDocumentStore(directory, clock);
        counted(documents, "old-1", 2);
        counted(documents, "old-2", 3);
        clock.advance(Duration.ofHours(2));
        return documents;
    }

    private UsageInventory counted(DocumentStore documents, String instance, int requests) throws IOException {
        UsageInventory inventory = new UsageInventory(documents, instance, clock, 100);
        for (int i = 0; i < requests; i++) {
            inventory.record(AWS, "ci");
        }
        inventory.flush();
        return inventory;
    }

    private void shard(DocumentStore documents, String instance, String ci, String team) throws IOException {
        counted(documents, instance, 1);
        var shard = (com.fasterxml.jackson.databind.node.ObjectNode) new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(documents
                        .read(InventoryShards.key(instance))
                        .orElseThrow()
                        .content());
        shard.putObject("clientsLastSeen").put("ci", ci).put("team", team);
        documents.write(
                InventoryShards.key(instance), shard.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static long requests(DocumentStore documents) throws IOException {
        return InventoryShards.readAll(documents, null).get(AWS).requests();
    }
}
