package io.providermirror.server.tlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The appending log: its tiles, its checkpoints, reopening it, and what an audit finds when it is tampered with. */
final class TransparencyLogTest {

    private final MemoryDocumentStore store = new MemoryDocumentStore();
    private final LogKey key = LogKey.generate("mirror.example/log/test", new SecureRandom());
    private final LogStorage storage = new LogStorage(store, key.keyIdHex());

    private static List<byte[]> entries(int from, int count) {
        List<byte[]> entries = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            entries.add(("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
        }
        return entries;
    }

    private static byte[] rootOf(List<byte[]> entries) {
        List<byte[]> hashes = new ArrayList<>();
        entries.forEach(entry -> hashes.add(MerkleHashes.leafHash(entry)));
        return MerkleHashes.root(hashes);
    }

    @Test
    void everyCheckpointHasTheRootOfItsEntriesAcrossBatchesAndRestarts() throws Exception {
        List<byte[]> all = new ArrayList<>();
        TransparencyLog log = TransparencyLog.open(storage, key);
        assertThat(log.current().checkpoint().size()).isZero();
        assertThat(log.current().checkpoint().rootHash()).isEqualTo(MerkleHashes.emptyRoot());
        int[] batches = {1, 2, 253, 1, 255, 256, 257, 1000, 65_536 - 2025, 3};
        for (int batch : batches) {
            List<byte[]> entries = entries(all.size(), batch);
            assertThat(log.append(entries)).isEqualTo(all.size());
            all.addAll(entries);
            Checkpoint checkpoint = Checkpoint.open(log.current().note(), key.verifier());
            assertThat(checkpoint.size()).isEqualTo(all.size());
            assertThat(checkpoint.rootHash()).as("root after %d", all.size()).isEqualTo(rootOf(all));
            log = TransparencyLog.open(storage, key); // as after a restart: the right edge read back
        }
        LogAudit.Audited audited = LogAudit.audit(storage, key.verifier());
        assertThat(audited.entries()).hasSize(all.size());
        byte[] root = audited.checkpoint().rootHash();
        for (int index : new int[] {0, 255, 256, 65_535, all.size() - 1}) {
            List<byte[]> proof = MerkleHashes.inclusionProof(audited.leafHashes(), index, all.size());
            assertThat(MerkleHashes.verifyInclusion(
                            index, all.size(), MerkleHashes.leafHash(all.get(index)), proof, root))
                    .isTrue();
        }
    }

    @Test
    void tilesAreLaidOutAsTheSpecificationSays() throws Exception {
        TransparencyLog log = TransparencyLog.open(storage, key);
        for (int i = 0; i < 10; i++) {
            log.append(entries(i * 7000, 7000));
        }
        // "a tree of size 70,000 will be represented by 273 full level 0 tiles, one partial level 0 tile of width
        // 112, one full level 1 tile, one partial level 1 tile of width 17, and one partial level 2 tile of width 1"
        String prefix = "log/" + key.keyIdHex() + "/";
        assertThat(store.documents).containsKey(prefix + "tile/0/272");
        assertThat(store.documents).doesNotContainKey(prefix + "tile/0/273");
        assertThat(store.documents.get(prefix + "tile/0/273.p/112")).hasSize(112 * 32);
        assertThat(store.documents).containsKey(prefix + "tile/1/000");
        assertThat(store.documents.get(prefix + "tile/1/001.p/17")).hasSize(17 * 32);
        assertThat(store.documents.get(prefix + "tile/2/000.p/1")).hasSize(32);
        assertThat(store.documents).doesNotContainKey(prefix + "tile/2/000");
        assertThat(store.documents).containsKey(prefix + "tile/entries/272");
        byte[] bundle = store.documents.get(prefix + "tile/entries/273.p/112");
        assertThat(TileCodec.entries(bundle, 112).get(0))
                .isEqualTo(entries(273 * 256, 1).get(0));
        assertThat(bundle[0]).isZero(); // a big-endian length prefix: {"n":69888} is 11 bytes
        assertThat(bundle[1]).isEqualTo((byte) 11);
        // The level 1 hash is the root of the full level 0 tile below it.
        List<byte[]> level0 = TileCodec.hashes(store.documents.get(prefix + "tile/0/000"), 256);
        assertThat(TileCodec.hashes(store.documents.get(prefix + "tile/1/000"), 256)
                        .get(0))
                .isEqualTo(MerkleHashes.root(level0));
        assertThat(log.served(new TileName(0, 272, 256))).isPresent();
        assertThat(log.served(new TileName(0, 273, 113))).isEmpty();
        assertThat(log.served(new TileName(0, 274, 256))).isEmpty();
    }

    @Test
    void aFailedWriteAppendsNothingAndTheNextOneEverything() throws Exception {
        TransparencyLog log = TransparencyLog.open(storage, key);
        log.append(entries(0, 300));
        store.failing = true;
        assertThatThrownBy(() -> log.append(entries(300, 300))).hasMessageContaining("failing");
        assertThat(log.current().checkpoint().size()).isEqualTo(300);
        store.failing = false;
        log.append(entries(300, 300));
        assertThat(log.current().checkpoint().rootHash()).isEqualTo(rootOf(entries(0, 600)));
        assertThat(TransparencyLog.open(storage, key).current().checkpoint().size())
                .isEqualTo(600);
        LogAudit.audit(storage, key.verifier());

        // Tiles written by a batch whose checkpoint failed are never served, though they are stored.
        store.failingCheckpoints = true;
        assertThatThrownBy(() -> log.append(entries(600, 100))).hasMessageContaining("failing");
        TileName beyond = new TileName(TileName.ENTRIES, 2, 188);
        assertThat(storage.tile(beyond)).isPresent();
        assertThat(log.served(beyond)).isEmpty();
        assertThat(log.served(new TileName(TileName.ENTRIES, 2, 88))).isPresent();
    }

    @Test
    void anAuditFindsAChangedEntry() throws Exception {
        TransparencyLog log = TransparencyLog.open(storage, key);
        log.append(entries(0, 600));
        String bundle = "log/" + key.keyIdHex() + "/tile/entries/001";
        byte[] changed = store.documents.get(bundle);
        changed[changed.length - 3] ^= 1;
        store.documents.put(bundle, changed);
        assertThatThrownBy(() -> LogAudit.audit(storage, key.verifier()))
                .hasMessageContaining("do not give the checkpoint's root hash");
    }

    @Test
    void anAuditFindsAChangedHashTile() throws Exception {
        TransparencyLog log = TransparencyLog.open(storage, key);
        log.append(entries(0, 600));
        String tile = "log/" + key.keyIdHex() + "/tile/0/002.p/88";
        byte[] changed = store.documents.get(tile);
        changed[40] ^= 1;
        store.documents.put(tile, changed);
        assertThatThrownBy(() -> LogAudit.audit(storage, key.verifier()))
                .hasMessageContaining("tile/0/002.p/88 holds a hash the entries do not give");
        assertThatThrownBy(() -> TransparencyLog.open(storage, key)).hasMessageContaining("run `log verify`");
    }

    @Test
    void anAuditFindsAMissingBundleAndAForeignSignature() throws Exception {
        TransparencyLog log = TransparencyLog.open(storage, key);
        log.append(entries(0, 600));
        LogKey other = LogKey.generate(key.name(), new SecureRandom());
        assertThatThrownBy(() -> LogAudit.audit(storage, other.verifier()))
                .hasMessageContaining("checkpoint does not verify");
        store.documents.remove("log/" + key.keyIdHex() + "/tile/entries/001");
        assertThatThrownBy(() -> LogAudit.audit(storage, key.verifier()))
                .hasMessageContaining("lacks tile/entries/001");
    }

    @Test
    void aSavedCheckpointShowsTheLogWasTruncatedOrRewritten() throws Exception {
        TransparencyLog log = TransparencyLog.open(storage, key);
        log.append(entries(0, 100));
        byte[] early = log.current().note();
        log.append(entries(100, 200));
        Checkpoint saved = Checkpoint.open(log.current().note(), key.verifier());
        log.append(entries(300, 5));
        LogAudit.checkConsistency(saved, LogAudit.audit(storage, key.verifier()));
        LogAudit.checkConsistency(Checkpoint.open(early, key.verifier()), LogAudit.audit(storage, key.verifier()));

        // Truncated: the log put back to an earlier checkpoint (signed by its own key, so it verifies alone).
        store.documents.put("log/" + key.keyIdHex() + "/checkpoint", early);
        LogAudit.Audited truncated = LogAudit.audit(storage, key.verifier());
        assertThatThrownBy(() -> LogAudit.checkConsistency(saved, truncated)).hasMessageContaining("the log shrank");

        // Rewritten: another history of the same size, signed with the same key.
        MemoryDocumentStore otherStore = new MemoryDocumentStore();
        LogStorage other = new LogStorage(otherStore, key.keyIdHex());
        TransparencyLog forged = TransparencyLog.open(other, key);
        forged.append(entries(1, 305));
        assertThatThrownBy(() -> LogAudit.checkConsistency(saved, LogAudit.audit(other, key.verifier())))
                .hasMessageContaining("the log was rewritten");
    }
}
