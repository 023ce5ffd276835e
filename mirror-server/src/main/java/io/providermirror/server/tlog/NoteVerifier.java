package io.providermirror.server.tlog;

import java.util.Base64;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/**
 * An Ed25519 verifier key of C2SP {@code signed-note}, read from {@code <name>+<hex key ID>+<base64(0x01 || key)>}
 * and refused unless the key ID is the one its name and key give.
 */
public record NoteVerifier(String name, int keyId, byte[] publicKey) {

    /** The verifier a verifier key string names. */
    public static NoteVerifier parse(String verifierKey) {
        String[] parts = verifierKey.strip().split("\\+", 3);
        if (parts.length != 3 || !parts[1].matches("[0-9a-f]{8}")) {
            throw new IllegalArgumentException("verifier key '" + verifierKey
                    + "' (expected: <name>+<8 hex digits>+<base64 key>, as the status page shows it)");
        }
        byte[] typed;
        try {
            typed = Base64.getDecoder().decode(parts[2]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("verifier key '" + verifierKey + "': its key is not base64", e);
        }
        if (typed.length != 33 || typed[0] != LogKey.ED25519) {
            throw new IllegalArgumentException("verifier key '" + verifierKey + "': not an Ed25519 key");
        }
        byte[] key = java.util.Arrays.copyOfRange(typed, 1, 33);
        String name = LogKey.checkName(parts[0]);
        int id = Integer.parseUnsignedInt(parts[1], 16);
        if (id != LogKey.keyId(name, key)) {
            throw new IllegalArgumentException(
                    "verifier key '" + verifierKey + "': its key ID does not match its name and key");
        }
        return new NoteVerifier(name, id, key);
    }

    /** The key ID as 8 hex digits, as the verifier key spells it (and the log's storage is named). */
    public String keyIdHex() {
        return String.format("%08x", keyId);
    }

    /** Whether {@code signature} is this key's Ed25519 signature over {@code message}. */
    public boolean verifies(byte[] message, byte[] signature) {
        if (signature.length != 64) {
            return false;
        }
        Ed25519Signer verifier = new Ed25519Signer();
        verifier.init(false, new Ed25519PublicKeyParameters(publicKey, 0));
        verifier.update(message, 0, message.length);
        return verifier.verifySignature(signature);
    }
}
