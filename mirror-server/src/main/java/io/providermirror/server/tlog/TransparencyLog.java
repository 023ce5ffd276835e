package io.providermirror.server.tlog;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The appending side of the log: the tree's right edge (the partial tile of each level and the partial entry
 * bundle) in memory, the rest in {@link LogStorage}. A batch of entries is appended by writing the tiles and bundles
 * it fills or changes and then the new signed checkpoint: the checkpoint is the commit, so a batch interrupted before
 * it leaves the log as it was (the tiles it wrote lie beyond the checkpoint, are never served, and are written over
 * by the next batch). One writer per log; calls are serialized.
 */
public final class TransparencyLog {

    private final LogStorage storage;
    private final LogKey key;
    /** For each level, the hashes of its partial tile (fewer than 256). */
    private List<List<byte[]>> edge;
    /** The entries of the partial entry bundle. */
    private List<byte[]> bundle;

    private volatile Signed current;

    /** A checkpoint with its signed note. */
    public record Signed(Checkpoint checkpoint, byte[] note) {}

    private TransparencyLog(
            LogStorage storage, LogKey key, List<List<byte[]>> edge, List<byte[]> bundle, Signed current) {
        this.storage = storage;
        this.key = key;
        this.edge = edge;
        this.bundle = bundle;
        this.current = current;
    }

    /**
     * The log kept in {@code storage} and signed by {@code key}: its right edge read back and checked against its
     * checkpoint, or a new empty log (whose first checkpoint is written now).
     *
     * @throws IOException when the stored log does not match its own checkpoint, or cannot be read
     */
    public static TransparencyLog open(LogStorage storage, LogKey key) throws IOException {
        Optional<byte[]> note = storage.checkpoint();
        if (note.isEmpty()) {
            TransparencyLog log = new TransparencyLog(storage, key, new ArrayList<>(), new ArrayList<>(), null);
            log.commit(0, Map.of());
            return log;
        }
        Checkpoint checkpoint;
        try {
            checkpoint = Checkpoint.open(note.get(), key.verifier());
        } catch (SignedNote.InvalidNoteException e) {
            throw new IOException(
                    "the transparency log's checkpoint does not verify with its key: " + e.getMessage(), e);
        }
        long size = checkpoint.size();
        List<List<byte[]>> edge = new ArrayList<>();
        try {
            for (int level = 0; levelSize(size, level) > 0; level++) {
                long count = levelSize(size, level);
                int width = (int) (count % TileName.FULL);
                List<byte[]> hashes = new ArrayList<>();
                if (width > 0) {
                    TileName name = new TileName(level, count / TileName.FULL, width);
                    hashes.addAll(TileCodec.hashes(read(storage, name), width));
                }
                edge.add(hashes);
            }
            List<byte[]> bundle = new ArrayList<>();
            int width = (int) (size % TileName.FULL);
            if (width > 0) {
                TileName name = new TileName(TileName.ENTRIES, size / TileName.FULL, width);
                bundle.addAll(TileCodec.entries(read(storage, name), width));
            }
            byte[] root = rootOf(edge);
            if (!MerkleHashes.same(root, checkpoint.rootHash())) {
                throw new IOException("the transparency log's stored tiles do not give the root hash of its checkpoint "
                        + "(tree size " + size + "): it was changed outside the mirror; run `log verify`");
            }
            return new TransparencyLog(storage, key, edge, bundle, new Signed(checkpoint, note.get()));
        } catch (IllegalArgumentException e) {
            throw new IOException("the transparency log's stored tiles are malformed: " + e.getMessage(), e);
        }
    }

    private static byte[] read(LogStorage storage, TileName name) throws IOException {
        return storage.tile(name)
                .orElseThrow(() ->
                        new IOException("the transparency log lacks " + name.path() + ", which its checkpoint needs"));
    }

    /** How many hashes level {@code level} holds in a tree of {@code size}: size / 256^level. */
    static long levelSize(long size, int level) {
        int shift = 8 * level;
        return shift >= 64 ? 0 : size >>> shift;
    }

    /**
     * The root hash of the tree whose right edge is {@code edge}: each level's partial tile splits into complete
     * subtrees (one per bit of its width), and RFC 6962's root is those subtrees folded from the right.
     */
    static byte[] rootOf(List<List<byte[]>> edge) {
        List<byte[]> subtrees = new ArrayList<>();
        for (int level = edge.size() - 1; level >= 0; level--) {
            List<byte[]> tile = edge.get(level);
            int start = 0;
            for (int bit = 7; bit >= 0; bit--) {
                int span = 1 << bit;
                if ((tile.size() & span) != 0) {
                    subtrees.add(MerkleHashes.root(tile, start, start + span));
                    start += span;
                }
            }
        }
        if (subtrees.isEmpty()) {
            return MerkleHashes.emptyRoot();
        }
        byte[] root = subtrees.get(subtrees.size() - 1);
        for (int i = subtrees.size() - 2; i >= 0; i--) {
            root = MerkleHashes.nodeHash(subtrees.get(i), root);
        }
        return root;
    }

    /** The latest checkpoint and its signed note. */
    public Signed current() {
        return current;
    }

    /** The key the log is signed with. */
    public LogKey key() {
        return key;
    }

    /** The storage the log is kept in. */
    public LogStorage storage() {
        return storage;
    }

    /**
     * Appends {@code entries} in order and commits them under a new checkpoint, returning the index of the first.
     * On failure nothing is appended: the log stays at its last checkpoint.
     */
    public synchronized long append(List<byte[]> entries) throws IOException {
        for (byte[] entry : entries) {
            if (entry.length > TileCodec.MAX_ENTRY) {
                throw new IllegalArgumentException(
                        "a log entry of " + entry.length + " bytes (expected: at most 65535)");
            }
        }
        long first = current.checkpoint().size();
        List<List<byte[]>> newEdge = new ArrayList<>();
        edge.forEach(tile -> newEdge.add(new ArrayList<>(tile)));
        List<byte[]> newBundle = new ArrayList<>(bundle);
        Map<TileName, byte[]> writes = new LinkedHashMap<>();
        long size = first;
        for (byte[] entry : entries) {
            newBundle.add(entry);
            if (newBundle.size() == TileName.FULL) {
                writes.put(
                        new TileName(TileName.ENTRIES, size / TileName.FULL, TileName.FULL),
                        TileCodec.bundle(newBundle));
                newBundle.clear();
            }
            byte[] hash = MerkleHashes.leafHash(entry);
            size++;
            for (int level = 0; hash != null; level++) {
                if (newEdge.size() == level) {
                    newEdge.add(new ArrayList<>());
                }
                List<byte[]> tile = newEdge.get(level);
                tile.add(hash);
                hash = null;
                if (tile.size() == TileName.FULL) {
                    long index = levelSize(size, level) / TileName.FULL - 1;
                    writes.put(new TileName(level, index, TileName.FULL), TileCodec.hashes(tile));
                    hash = MerkleHashes.root(tile);
                    tile.clear();
                }
            }
        }
        for (int level = 0; level < newEdge.size(); level++) {
            List<byte[]> tile = newEdge.get(level);
            if (!tile.isEmpty()) {
                writes.put(
                        new TileName(level, levelSize(size, level) / TileName.FULL, tile.size()),
                        TileCodec.hashes(tile));
            }
        }
        if (!newBundle.isEmpty()) {
            writes.put(
                    new TileName(TileName.ENTRIES, size / TileName.FULL, newBundle.size()),
                    TileCodec.bundle(newBundle));
        }
        List<List<byte[]>> previousEdge = edge;
        edge = newEdge;
        try {
            commit(size, writes);
        } catch (IOException | RuntimeException e) {
            edge = previousEdge;
            throw e;
        }
        bundle = newBundle;
        return first;
    }

    private void commit(long size, Map<TileName, byte[]> writes) throws IOException {
        for (Map.Entry<TileName, byte[]> write : writes.entrySet()) {
            storage.writeTile(write.getKey(), write.getValue());
        }
        Checkpoint checkpoint = new Checkpoint(key.name(), size, rootOf(edge));
        byte[] note = SignedNote.sign(checkpoint.text(), key);
        storage.writeCheckpoint(note);
        current = new Signed(checkpoint, note);
    }

    /**
     * A tile or bundle as served: only those the current checkpoint covers, so that nothing written by a batch that
     * did not commit is ever handed out (full tiles are served as immutable).
     */
    public Optional<byte[]> served(TileName name) throws IOException {
        long count = levelSize(current.checkpoint().size(), Math.max(0, name.level()));
        if (name.index() > count / TileName.FULL || name.index() * TileName.FULL + name.width() > count) {
            return Optional.empty();
        }
        return storage.tile(name);
    }
}
