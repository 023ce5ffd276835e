package io.providermirror.server.tlog;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

/**
 * C2SP {@code signed-note}: a text ending in a newline, a blank line, and signature lines
 * {@code — <key name> <base64(4-byte key ID || signature)>}. Signing and opening with one known key.
 */
public final class SignedNote {

    private static final String DASH = "\u2014 ";
    private static final int MAX_BYTES = 1 << 16;

    private SignedNote() {}

    /** {@code text} signed by {@code key}. */
    public static byte[] sign(String text, LogKey key) {
        checkText(text);
        byte[] message = text.getBytes(StandardCharsets.UTF_8);
        byte[] signature = key.sign(message);
        byte[] line = ByteBuffer.allocate(4 + signature.length)
                .putInt(key.keyId())
                .put(signature)
                .array();
        String note =
                text + "\n" + DASH + key.name() + " " + Base64.getEncoder().encodeToString(line) + "\n";
        return note.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The text of {@code note} when a signature line by {@code verifier}'s key verifies; other keys' lines are
     * ignored, as the specification says.
     *
     * @throws InvalidNoteException when the note is malformed, carries no line by that key, or that line fails
     */
    public static String open(byte[] note, NoteVerifier verifier) throws InvalidNoteException {
        if (note.length > MAX_BYTES) {
            throw new InvalidNoteException("the note is larger than " + MAX_BYTES + " bytes");
        }
        String whole;
        try {
            whole = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(note))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new InvalidNoteException("the note is not UTF-8");
        }
        int split = whole.lastIndexOf("\n\n");
        if (split < 0 || !whole.endsWith("\n")) {
            throw new InvalidNoteException("the note has no blank line before its signatures");
        }
        String text = whole.substring(0, split + 1);
        try {
            checkText(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidNoteException(e.getMessage());
        }
        boolean verified = false;
        for (String line : whole.substring(split + 2, whole.length() - 1).split("\n", -1)) {
            if (!line.startsWith(DASH)) {
                throw new InvalidNoteException("a signature line does not start with an em dash: " + line);
            }
            String[] parts = line.substring(DASH.length()).split(" ", -1);
            if (parts.length != 2) {
                throw new InvalidNoteException("a signature line is not '— <name> <signature>': " + line);
            }
            byte[] signature;
            try {
                signature = Base64.getDecoder().decode(parts[1]);
            } catch (IllegalArgumentException e) {
                throw new InvalidNoteException("a signature is not base64: " + line);
            }
            if (signature.length < 4) {
                throw new InvalidNoteException("a signature is shorter than its key ID: " + line);
            }
            int id = ByteBuffer.wrap(signature).getInt();
            if (!parts[0].equals(verifier.name()) || id != verifier.keyId()) {
                continue;
            }
            if (!verifier.verifies(
                    text.getBytes(StandardCharsets.UTF_8), Arrays.copyOfRange(signature, 4, signature.length))) {
                throw new InvalidNoteException("the signature by " + verifier.name() + "+"
                        + String.format("%08x", verifier.keyId()) + " does not verify");
            }
            verified = true;
        }
        if (!verified) {
            throw new InvalidNoteException("the note carries no signature by " + verifier.name() + "+"
                    + String.format("%08x", verifier.keyId()));
        }
        return text;
    }

    private static void checkText(String text) {
        if (text.isEmpty() || !text.endsWith("\n")) {
            throw new IllegalArgumentException("a note's text must end in a newline");
        }
        if (text.chars().anyMatch(c -> c < 0x20 && c != '\n')) {
            throw new IllegalArgumentException("a note's text must not hold control characters");
        }
    }

    /** A note that is malformed or does not carry a good signature by the expected key. */
    public static final class InvalidNoteException extends Exception {
        private static final long serialVersionUID = 1L;

        public InvalidNoteException(String message) {
            super(message);
        }
    }
}
