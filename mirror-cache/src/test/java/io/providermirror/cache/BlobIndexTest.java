package io.providermirror.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.time.Instant;
import org.junit.jupiter.api.Test;

final class BlobIndexTest {

    private static final Instant T = Instant.parse("2026-01-02T03:04:05Z");

    private static CacheKey key(String name) {
        return CacheKey.of("example.test", "acme", "fake", "1.0.0", name);
    }

    private static StoredBlob blob(String name, long size) {
        return new StoredBlob(key(name), size, "0".repeat(64), T);
    }

    @Test
    void evictsTheLeastRecentlyUsedFirstUntilTheTotalIsWithinTheBound() {
        BlobIndex index = new BlobIndex(10);
        index.put(key("a"), 4, T, false);
        index.put(key("b"), 4, T, false);
        index.put(key("c"), 4, T, false);

        assertThat(index.evictOverBound()).containsExactly(key("a"));
        assertThat(index.totalBytes()).isEqualTo(8);
        assertThat(index.count()).isEqualTo(2);
        assertThat(index.evictions()).isEqualTo(1);
    }

    @Test
    void theLastUseIsTheTimeOfTheLatestOpenPinOrUnpinAndTheCommitBeforeAny() {
        java.util.concurrent.atomic.AtomicReference<Instant> now = new java.util.concurrent.atomic.AtomicReference<>(T);
        java.time.Clock clock = new java.time.Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return java.time.ZoneOffset.UTC;
            }

            @Override
            public java.time.Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now.get();
            }
        };
        BlobIndex index = new BlobIndex(100, clock);
        index.put(key("a"), 4, T, false);
        index.put(key("b"), 4, T, T.plusSeconds(5), false);
        now.set(T.plusSeconds(60));
        index.opened(blob("a", 4));
        now.set(T.plusSeconds(120));
        index.unpin(key("a"));

        assertThat(index.summaries())
                .extracting(BlobSummary::key, BlobSummary::lastUsed)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(key("b"), T.plusSeconds(5)),
                        org.assertj.core.groups.Tuple.tuple(key("a"), T.plusSeconds(120)));
    }

    @Test
    void openingABlobMakesItTheMostRecentlyUsed() {
        BlobIndex index = new BlobIndex(10);
        index.put(key("a"), 4, T, false);
        index.put(key("b"), 4, T, false);
        index.opened(blob("a", 4));
        assertThat(index.keys()).containsExactly(key("b"), key("a"));
        index.unpin(key("a"));
        index.put(key("c"), 4, T, false);

        assertThat(index.evictOverBound()).containsExactly(key("b"));
        assertThat(index.keys()).containsExactly(key("a"), key("c"));
    }

    @Test
    void aPinnedBlobIsNotEvictedUntilItsLastReaderIsDone() {
        BlobIndex index = new BlobIndex(5);
        index.put(key("a"), 4, T, false);
        assertThat(index.pin(key("a"))).isTrue();
        assertThat(index.pin(key("a"))).isTrue();
        index.put(key("b"), 4, T, false);

        assertThat(index.evictOverBound())
                .as("a is read, b is the newest but not read")
                .containsExactly(key("b"));
        index.put(key("c"), 4, T, false);
        index.unpin(key("a"));
        assertThat(index.evictOverBound()).as("one reader of a is left").containsExactly(key("c"));
        index.unpin(key("a"));
        index.put(key("d"), 4, T, false);
        assertThat(index.evictOverBound()).containsExactly(key("a"));
    }

    @Test
    void evictingForFreeSpaceTakesNothingWhenEverythingItMayTakeIsNotEnough() {
        BlobIndex index = new BlobIndex(Long.MAX_VALUE);
        index.put(key("a"), 4, T, false);
        index.put(key("b"), 4, T, false);
        index.put(key("c"), 4, T, false);
        index.pin(key("a"));

        assertThat(index.evictToFree(6, key("c")))
                .as("only b may go, 4 of the 6 bytes")
                .isEmpty();
        assertThat(index.count()).isEqualTo(3);
        assertThat(index.evictions()).isZero();

        assertThat(index.evictToFree(3, null)).containsExactly(key("b"));
        assertThat(index.evictToFree(4, null)).as("a is read").containsExactly(key("c"));
        assertThat(index.totalBytes()).isEqualTo(4);
        assertThat(index.evictions()).isEqualTo(2);
    }

    @Test
    void aBlobIsVerifiedOnceCommittedOrOpenedAndForgetsItWhenRemoved() {
        BlobIndex index = new BlobIndex(100);
        index.put(key("found"), 1, T, false);
        index.put(key("committed"), 1, T, true);
        assertThat(index.verified(key("found"))).isFalse();
        assertThat(index.verified(key("committed"))).isTrue();

        index.markVerified(key("found"));
        assertThat(index.verified(key("found"))).isTrue();
        index.remove(key("found"));
        assertThat(index.verified(key("found"))).isFalse();
        index.put(key("found"), 1, T, false);
        assertThat(index.verified(key("found")))
                .as("found again at start-up or on disk")
                .isFalse();
    }

    @Test
    void theHotPathOpensOnlyWhatWasOpenedBeforeAndIsStillIndexed() {
        BlobIndex index = new BlobIndex(100);
        index.put(key("a"), 4, T, true);
        assertThat(index.pinOpened(key("a"))).as("committed, never opened").isEmpty();

        index.opened(blob("a", 4));
        index.unpin(key("a"));
        assertThat(index.pinOpened(key("a"))).contains(new BlobIndex.Pinned(blob("a", 4), null));
        index.unpin(key("a"));
        index.forgetOpened(key("a"));
        assertThat(index.pinOpened(key("a"))).isEmpty();

        index.opened(blob("a", 4));
        index.unpin(key("a"));
        index.remove(key("a"));
        assertThat(index.pinOpened(key("a"))).isEmpty();
        assertThat(index.pin(key("a"))).as("nothing to pin").isFalse();
    }

    @Test
    void theHotPathPinsWhatItOpensUntilItsReaderIsDone() {
        BlobIndex index = new BlobIndex(4);
        index.put(key("a"), 4, T, true);
        index.opened(blob("a", 4));
        index.unpin(key("a"));

        assertThat(index.pinOpened(key("a"))).contains(new BlobIndex.Pinned(blob("a", 4), null));
        index.put(key("b"), 4, T, true);
        assertThat(index.evictOverBound()).as("a is being read").containsExactly(key("b"));
        index.unpin(key("a"));
        index.put(key("b"), 4, T, true);
        assertThat(index.evictOverBound()).as("a's reader is done, b is newer").containsExactly(key("a"));
    }

    @Test
    void contentIsHeldForTheBlobAsLastOpenedWithinItsBoundAndGoesWithItsEntry() {
        BlobIndex index = new BlobIndex(100, java.time.Clock.systemUTC(), 8);
        ByteBuffer four = ByteBuffer.wrap(new byte[] {1, 2, 3, 4}).asReadOnlyBuffer();
        index.put(key("a"), 4, T, true);
        assertThat(index.hold(blob("a", 4), four))
                .as("never opened: no memo to hold it with")
                .isFalse();
        index.opened(blob("a", 4));
        assertThat(index.hold(blob("a", 5), ByteBuffer.allocate(5)))
                .as("not the blob as opened")
                .isFalse();
        assertThat(index.hold(blob("a", 4), ByteBuffer.allocate(3)))
                .as("not its whole content")
                .isFalse();
        assertThat(index.hold(blob("a", 4), four)).isTrue();
        assertThat(index.pinOpened(key("a"))).contains(new BlobIndex.Pinned(blob("a", 4), four));
        assertThat(index.heldBytes()).isEqualTo(4);

        index.opened(blob("b", 4));
        assertThat(index.hold(blob("b", 4), ByteBuffer.allocate(4))).isTrue();
        index.opened(blob("c", 4));
        assertThat(index.hold(blob("c", 4), ByteBuffer.allocate(4)))
                .as("8 bytes are held already, the bound")
                .isFalse();

        index.forgetOpened(key("a"));
        assertThat(index.heldBytes())
                .as("a's file looks changed: its content goes")
                .isEqualTo(4);
        index.remove(key("b"));
        assertThat(index.heldBytes()).as("b removed (a purge, a damaged file)").isZero();

        index.opened(blob("c", 4));
        assertThat(index.hold(blob("c", 4), ByteBuffer.allocate(4))).isTrue();
        index.put(key("c"), 4, T.plusSeconds(1), true);
        assertThat(index.heldBytes()).as("c committed again: new content").isZero();
        assertThat(index.pinOpened(key("c"))).isEmpty();
    }

    @Test
    void heldContentGoesWhenTheBlobIsOpenedAsAnotherAndRoomIsToldBeforeReading() {
        BlobIndex index = new BlobIndex(100, java.time.Clock.systemUTC(), 6);
        assertThat(index.mayHold(6)).isTrue();
        assertThat(index.mayHold(7)).isFalse();
        index.opened(blob("a", 4));
        assertThat(index.hold(blob("a", 4), ByteBuffer.allocate(4))).isTrue();
        assertThat(index.mayHold(3)).as("4 of 6 bytes held").isFalse();
        index.opened(blob("a", 4));
        assertThat(index.heldBytes())
                .as("opened again as the same blob: still held")
                .isEqualTo(4);

        index.opened(new StoredBlob(key("a"), 4, "1".repeat(64), T));
        assertThat(index.heldBytes())
                .as("opened as other content: what was held goes")
                .isZero();
        assertThat(index.pinOpened(key("a")).orElseThrow().held()).isNull();
    }

    @Test
    void heldContentGoesWithTheBlobsEvicted() {
        BlobIndex index = new BlobIndex(8, java.time.Clock.systemUTC(), 8);
        index.opened(blob("a", 4));
        index.unpin(key("a"));
        assertThat(index.hold(blob("a", 4), ByteBuffer.allocate(4))).isTrue();
        index.opened(blob("b", 4));
        index.unpin(key("b"));
        assertThat(index.hold(blob("b", 4), ByteBuffer.allocate(4))).isTrue();

        index.put(key("c"), 4, T, true);
        assertThat(index.evictOverBound()).containsExactly(key("a"));
        assertThat(index.heldBytes()).isEqualTo(4);
        assertThat(index.evictToFree(4, key("c"))).containsExactly(key("b"));
        assertThat(index.heldBytes()).isZero();
    }

    @Test
    void recommittingAKeyReplacesItsSizeAndMakesItTheNewest() {
        BlobIndex index = new BlobIndex(10);
        index.put(key("a"), 4, T, false);
        index.put(key("b"), 4, T, false);
        index.put(key("a"), 6, T.plusSeconds(1), true);

        assertThat(index.totalBytes()).isEqualTo(10);
        assertThat(index.summaries())
                .containsExactly(new BlobSummary(key("b"), 4, T), new BlobSummary(key("a"), 6, T.plusSeconds(1)));
    }

    @Test
    void listingAndCheckingDoNotChangeTheOrder() {
        BlobIndex index = new BlobIndex(8);
        index.put(key("a"), 4, T, false);
        index.put(key("b"), 4, T, false);
        index.summaries();
        index.verified(key("a"));
        index.put(key("c"), 4, T, false);

        assertThat(index.evictOverBound()).containsExactly(key("a"));
    }

    @Test
    void refusesABoundThatHoldsNothing() {
        assertThatThrownBy(() -> new BlobIndex(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxBytes: 0 (expected: > 0)");
    }
}
