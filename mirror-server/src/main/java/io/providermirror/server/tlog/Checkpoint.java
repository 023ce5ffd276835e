package io.providermirror.server.tlog;

import java.util.Base64;

/**
 * The text of a C2SP {@code tlog-checkpoint}: the log's origin, its tree size and the RFC 6962 root hash of the tree
 * of that size, one per line.
 */
public record Checkpoint(String origin, long size, byte[] rootHash) {

    public Checkpoint {
        if (origin.isEmpty() || origin.contains("\n")) {
            throw new IllegalArgumentException("origin: '" + origin + "' (expected: one non-empty line)");
        }
        if (size < 0 || rootHash.length != MerkleHashes.HASH_SIZE) {
            throw new IllegalArgumentException("a checkpoint needs a size >= 0 and a 32-byte root hash");
        }
        rootHash = rootHash.clone();
    }

    /** The note text: {@code <origin>\n<size>\n<base64 root>\n}. */
    public String text() {
        return origin + "\n" + size + "\n" + Base64.getEncoder().encodeToString(rootHash) + "\n";
    }

    /** The checkpoint a verified note's text holds; extension lines are ignored. */
    public static Checkpoint parse(String text) throws SignedNote.InvalidNoteException {
        String[] lines = text.split("\n", -1);
        if (lines.length < 4 || !lines[1].matches("0|[1-9][0-9]{0,18}")) {
            throw new SignedNote.InvalidNoteException("not a checkpoint: expected origin, size and root hash lines");
        }
        byte[] root;
        try {
            root = Base64.getDecoder().decode(lines[2]);
        } catch (IllegalArgumentException e) {
            throw new SignedNote.InvalidNoteException("the checkpoint's root hash is not base64");
        }
        try {
            return new Checkpoint(lines[0], Long.parseLong(lines[1]), root);
        } catch (IllegalArgumentException e) {
            throw new SignedNote.InvalidNoteException("not a checkpoint: " + e.getMessage());
        }
    }

    /** Opens a signed checkpoint note with {@code verifier}, whose name must be the origin. */
    public static Checkpoint open(byte[] note, NoteVerifier verifier) throws SignedNote.InvalidNoteException {
        Checkpoint checkpoint = parse(SignedNote.open(note, verifier));
        if (!checkpoint.origin().equals(verifier.name())) {
            throw new SignedNote.InvalidNoteException(
                    "the checkpoint is of log '" + checkpoint.origin() + "', not of '" + verifier.name() + "'");
        }
        return checkpoint;
    }
}
