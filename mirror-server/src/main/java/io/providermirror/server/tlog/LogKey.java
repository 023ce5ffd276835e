package io.providermirror.server.tlog;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/**
 * The log's Ed25519 signing key with its name, as C2SP {@code signed-note} identifies keys: the key ID is the first
 * four bytes of SHA-256(name || 0x0A || 0x01 || public key), the verifier key is
 * {@code <name>+<hex key ID>+<base64(0x01 || public key)>}. Kept as Go's {@code golang.org/x/mod/sumdb/note} keeps a
 * signer key ({@code PRIVATE+KEY+<name>+<hex key ID>+<base64(0x01 || seed)>}), so other tools can read it.
 */
public final class LogKey {

    static final byte ED25519 = 1;
    private static final String PRIVATE_PREFIX = "PRIVATE+KEY+";

    private final String name;
    private final Ed25519PrivateKeyParameters key;
    private final byte[] publicKey;

    private LogKey(String name, Ed25519PrivateKeyParameters key) {
        this.name = checkName(name);
        this.key = key;
        this.publicKey = key.generatePublicKey().getEncoded();
    }

    /** A new key named {@code name}. */
    public static LogKey generate(String name, SecureRandom random) {
        return new LogKey(name, new Ed25519PrivateKeyParameters(random));
    }

    /** The key a signer key string holds, checked against the key ID it carries. */
    public static LogKey parse(String signerKey) {
        String text = signerKey.strip();
        if (!text.startsWith(PRIVATE_PREFIX)) {
            throw new IllegalArgumentException("log key: expected PRIVATE+KEY+<name>+<key ID>+<key>");
        }
        String[] parts = text.substring(PRIVATE_PREFIX.length()).split("\\+", 3);
        if (parts.length != 3) {
            throw new IllegalArgumentException("log key: expected PRIVATE+KEY+<name>+<key ID>+<key>");
        }
        byte[] encoded = Base64.getDecoder().decode(parts[2]);
        if (encoded.length != 33 || encoded[0] != ED25519) {
            throw new IllegalArgumentException("log key: not an Ed25519 key (expected 0x01 and a 32-byte seed)");
        }
        LogKey key = new LogKey(parts[0], new Ed25519PrivateKeyParameters(encoded, 1));
        if (!parts[1].equals(key.keyIdHex())) {
            throw new IllegalArgumentException(
                    "log key: its key ID " + parts[1] + " does not match its key (" + key.keyIdHex() + ")");
        }
        return key;
    }

    /** This key as a signer key string; a secret. */
    public String signerKey() {
        byte[] seed = new byte[33];
        seed[0] = ED25519;
        key.encode(seed, 1);
        String text = PRIVATE_PREFIX + name + "+" + keyIdHex() + "+"
                + Base64.getEncoder().encodeToString(seed);
        Arrays.fill(seed, (byte) 0);
        return text;
    }

    /** The key's name: the log's origin line. */
    public String name() {
        return name;
    }

    /** The 32-byte Ed25519 public key. */
    public byte[] publicKey() {
        return publicKey.clone();
    }

    /** The key ID, as a signature line carries it. */
    public int keyId() {
        return keyId(name, publicKey);
    }

    public String keyIdHex() {
        return String.format("%08x", keyId());
    }

    /** {@code <name>+<hex key ID>+<base64(0x01 || public key)>}: what a client needs to check the log's checkpoints. */
    public String verifierKey() {
        return name + "+" + keyIdHex() + "+" + Base64.getEncoder().encodeToString(typed(publicKey));
    }

    /** This key's verifier. */
    public NoteVerifier verifier() {
        return NoteVerifier.parse(verifierKey());
    }

    /** An Ed25519 signature over {@code message}. */
    public byte[] sign(byte[] message) {
        Ed25519Signer signer = new Ed25519Signer();
        signer.init(true, key);
        signer.update(message, 0, message.length);
        return signer.generateSignature();
    }

    static int keyId(String name, byte[] publicKey) {
        MessageDigest digest = MerkleHashes.sha256();
        digest.update(name.getBytes(StandardCharsets.UTF_8));
        digest.update((byte) '\n');
        digest.update(typed(publicKey));
        byte[] hash = digest.digest();
        return (hash[0] & 0xff) << 24 | (hash[1] & 0xff) << 16 | (hash[2] & 0xff) << 8 | hash[3] & 0xff;
    }

    private static byte[] typed(byte[] publicKey) {
        byte[] typed = new byte[publicKey.length + 1];
        typed[0] = ED25519;
        System.arraycopy(publicKey, 0, typed, 1, publicKey.length);
        return typed;
    }

    /** A key name as signed-note allows it: not empty, no spaces, no plus, no control characters. */
    static String checkName(String name) {
        if (name == null || name.isEmpty() || !name.codePoints().allMatch(LogKey::nameCharacter)) {
            throw new IllegalArgumentException(
                    "log key name: '" + name + "' (expected: not empty, without spaces, '+' or control characters)");
        }
        return name;
    }

    private static boolean nameCharacter(int c) {
        return c > 0x20 && c != '+' && c != 0x7f && !Character.isWhitespace(c) && !Character.isSpaceChar(c);
    }

    @Override
    public String toString() {
        return "LogKey[" + verifierKey() + "]"; // never the private key
    }

    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
