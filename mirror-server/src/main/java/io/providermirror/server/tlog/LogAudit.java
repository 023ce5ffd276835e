package io.providermirror.server.tlog;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A whole check of a log as an auditor makes it, trusting nothing but the verifier key: the checkpoint's signature,
 * every entry bundle up to its size, the tree recomputed from those entries and its root compared with the
 * checkpoint's, and every hash tile compared with the recomputed one (a client proving inclusion reads those). A
 * saved checkpoint is then shown to be a prefix of this one: its root is that of the first entries, and a
 * consistency proof between the two verifies.
 */
public final class LogAudit {

    private LogAudit() {}

    /** A log read and checked whole. */
    public record Audited(Checkpoint checkpoint, byte[] note, List<byte[]> entries, List<byte[]> leafHashes) {}

    /** Reads and checks the log {@code source} holds, signed by {@code verifier}'s key. */
    public static Audited audit(LogSource source, NoteVerifier verifier) throws IOException, AuditException {
        byte[] note = source.checkpoint().orElseThrow(() -> new AuditException("the log has no checkpoint"));
        Checkpoint checkpoint;
        try {
            checkpoint = Checkpoint.open(note, verifier);
        } catch (SignedNote.InvalidNoteException e) {
            throw new AuditException("the checkpoint does not verify: " + e.getMessage());
        }
        if (checkpoint.size() > Integer.MAX_VALUE - 8) {
            throw new AuditException("the log has " + checkpoint.size() + " entries, more than this check holds");
        }
        int size = (int) checkpoint.size();
        List<byte[]> entries = new ArrayList<>(size);
        for (long index = 0; index * TileName.FULL < size; index++) {
            int width = (int) Math.min(TileName.FULL, size - index * TileName.FULL);
            TileName name = new TileName(TileName.ENTRIES, index, width);
            entries.addAll(decode(name, source, true));
        }
        List<byte[]> level = new ArrayList<>(size);
        entries.forEach(entry -> level.add(MerkleHashes.leafHash(entry)));
        List<byte[]> leafHashes = List.copyOf(level);
        byte[] root = MerkleHashes.root(leafHashes);
        if (!MerkleHashes.same(root, checkpoint.rootHash())) {
            throw new AuditException("the entries do not give the checkpoint's root hash (tree size " + size
                    + "): an entry was changed, removed or added");
        }
        List<byte[]> hashes = level;
        for (int tileLevel = 0; !hashes.isEmpty(); tileLevel++) {
            List<byte[]> above = new ArrayList<>();
            for (int start = 0; start < hashes.size(); start += TileName.FULL) {
                int width = Math.min(TileName.FULL, hashes.size() - start);
                TileName name = new TileName(tileLevel, start / TileName.FULL, width);
                List<byte[]> stored = decode(name, source, false);
                for (int i = 0; i < width; i++) {
                    if (!Arrays.equals(stored.get(i), hashes.get(start + i))) {
                        throw new AuditException(
                                name.path() + " holds a hash the entries do not give (hash " + i + ")");
                    }
                }
                if (width == TileName.FULL) {
                    above.add(MerkleHashes.root(hashes, start, start + width));
                }
            }
            hashes = above;
        }
        return new Audited(checkpoint, note, entries, leafHashes);
    }

    private static List<byte[]> decode(TileName name, LogSource source, boolean entries)
            throws IOException, AuditException {
        byte[] bytes = source.tile(name)
                .orElseThrow(() -> new AuditException("the log lacks " + name.path() + ", which its checkpoint needs"));
        try {
            return entries ? TileCodec.entries(bytes, name.width()) : TileCodec.hashes(bytes, name.width());
        } catch (IllegalArgumentException e) {
            throw new AuditException(name.path() + ": " + e.getMessage());
        }
    }

    /**
     * Checks that {@code saved}, a checkpoint of the same log taken earlier, is a prefix of the audited log: the log
     * only grew since.
     */
    public static void checkConsistency(Checkpoint saved, Audited live) throws AuditException {
        if (!saved.origin().equals(live.checkpoint().origin())) {
            throw new AuditException("the saved checkpoint is of log '" + saved.origin() + "', the live one of '"
                    + live.checkpoint().origin() + "'");
        }
        long size = live.checkpoint().size();
        if (saved.size() > size) {
            throw new AuditException(
                    "the log shrank: the saved checkpoint has " + saved.size() + " entries, the live one " + size);
        }
        int first = (int) saved.size();
        byte[] rootThen = MerkleHashes.root(live.leafHashes(), 0, first);
        if (!MerkleHashes.same(rootThen, saved.rootHash())) {
            throw new AuditException("the log was rewritten: its first " + first
                    + " entries no longer give the saved checkpoint's root hash");
        }
        if (first > 0) {
            List<byte[]> proof = MerkleHashes.consistencyProof(live.leafHashes(), first, (int) size);
            if (!MerkleHashes.verifyConsistency(
                    first, size, saved.rootHash(), live.checkpoint().rootHash(), proof)) {
                throw new AuditException("no consistency proof leads from the saved checkpoint to the live one");
            }
        }
    }

    /** A log that fails the check, and why. */
    public static final class AuditException extends Exception {
        private static final long serialVersionUID = 1L;

        public AuditException(String message) {
            super(message);
        }
    }
}
