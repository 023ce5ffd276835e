package io.providermirror.upstream;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.bouncycastle.openpgp.PGPCompressedData;
import org.bouncycastle.openpgp.PGPException;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.openpgp.PGPPublicKeyRingCollection;
import org.bouncycastle.openpgp.PGPSignature;
import org.bouncycastle.openpgp.PGPSignatureList;
import org.bouncycastle.openpgp.PGPUtil;
import org.bouncycastle.openpgp.bc.BcPGPObjectFactory;
import org.bouncycastle.openpgp.operator.bc.BcKeyFingerprintCalculator;
import org.bouncycastle.openpgp.operator.bc.BcPGPContentVerifierBuilderProvider;

/**
 * Verifies a detached OpenPGP signature (binary, as the registry protocol says, or ASCII-armored) over a
 * document with one of a set of ASCII-armored public keys, as the CLI does: key expiry is not enforced, and a key
 * signs only when the CLI's OpenPGP library would let it ({@link SigningKeyRules}: flagged for signing, a subkey
 * bound by its primary key and cross-signed by itself, not revoked). Keys and signatures of OpenPGP
 * version 3 count for nothing (the CLI's OpenPGP library does not read v3 keys): a v3 key's ID is the low 64 bits
 * of its RSA modulus, which whoever makes the key chooses, so anyone can make one with another key's ID.
 */
public final class OpenPgpSignatures {

    private OpenPgpSignatures() {}

    /**
     * Returns the hex key ID of the key that made a valid signature over {@code document}.
     *
     * @throws VerificationException when no signature in {@code signature} verifies with any of the keys
     */
    public static String verify(byte[] document, byte[] signature, List<String> armoredKeys) {
        return verify(document, signature, armoredKeys, Set.of(), "");
    }

    /**
     * As {@link #verify(byte[], byte[], List)}, when {@code pinned} is not empty using only pinned keys: a key
     * whose own fingerprint, or ID (16 hex digits: for these keys, part of the fingerprint), is pinned, or a subkey
     * validly bound to a primary key that is. Other keys, even in the same armored block or key ring as a pinned
     * one, sign nothing.
     *
     * @param pinSetting how to name the pin in an error, e.g. the configuration key
     */
    public static String verify(
            byte[] document, byte[] signature, List<String> armoredKeys, Set<String> pinned, String pinSetting) {
        if (armoredKeys.isEmpty()) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the origin lists no signing keys, so the signature over SHA256SUMS cannot be checked");
        }
        List<PGPSignature> signatures = readSignatures(signature).stream()
                .filter(candidate -> candidate.getVersion() >= 4)
                .toList();
        if (signatures.isEmpty()) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the SHA256SUMS signature is of "
                            + "OpenPGP version 3, which the mirror does not accept (a signature of version 4 or later is needed)");
        }
        // Each certificate (key ring) on its own: a signing subkey is judged by its binding to its own primary key.
        List<PGPPublicKeyRing> keyRings = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        List<String> outdated = new ArrayList<>();
        for (String armored : armoredKeys) {
            for (PGPPublicKeyRing ring : readKeys(armored)) {
                if (ring.getPublicKey().getVersion() < 4) {
                    outdated.add(keyId(ring.getPublicKey().getKeyID()));
                } else if (pinned.isEmpty() || mentionsPin(ring, pinned)) {
                    keyRings.add(ring);
                } else {
                    refused.add(fingerprint(ring.getPublicKey()));
                }
            }
        }
        if (keyRings.isEmpty() && refused.isEmpty()) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the origin's signing key(s) ("
                            + String.join(", ", outdated)
                            + ") are of OpenPGP version 3, which neither the CLI nor the mirror "
                            + "accepts: a version 3 key ID is chosen by whoever makes the key");
        }
        if (keyRings.isEmpty()) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "none of the origin's signing keys ("
                            + String.join(", ", refused) + ") is among the keys pinned in " + pinSetting + " " + pinned
                            + (outdated.isEmpty()
                                    ? ""
                                    : "; keys of OpenPGP version 3 (" + String.join(", ", outdated)
                                            + ") sign nothing"));
        }
        // Why each key that would have made a signature may not (as the CLI judges keys), for the error.
        Set<String> unusable = new LinkedHashSet<>();
        for (PGPSignature candidate : signatures) {
            for (PGPPublicKeyRing ring : keyRings) {
                PGPPublicKey key = ring.getPublicKey(candidate.getKeyID());
                if (key == null || key.getVersion() < 4) {
                    continue;
                }
                Optional<String> whyNot = SigningKeyRules.whyNotUsable(ring, key);
                if (whyNot.isPresent()) {
                    unusable.add(whyNot.get());
                    continue;
                }
                try {
                    if (mayUse(ring, key, pinned) && verifies(candidate, key, document)) {
                        return keyId(candidate.getKeyID());
                    }
                } catch (PGPException e) {
                    // A key that cannot check this signature is simply not the one that made it.
                }
            }
        }
        StringBuilder ids = new StringBuilder();
        for (PGPSignature candidate : signatures) {
            ids.append(ids.length() == 0 ? "" : ", ").append(keyId(candidate.getKeyID()));
        }
        throw new VerificationException(
                VerificationException.Check.SIGNATURE,
                "the signature over SHA256SUMS (made by key " + ids + ") does not verify with any of the origin's "
                        + armoredKeys.size() + " signing key(s)"
                        + (pinned.isEmpty() ? "" : " that " + pinSetting + " " + pinned + " lets sign")
                        + (unusable.isEmpty() ? "" : "; " + String.join("; ", unusable)));
    }

    /** True when any key of {@code ring} is pinned, so the ring is worth looking at. */
    private static boolean mentionsPin(PGPPublicKeyRing ring, Set<String> pinned) {
        for (PGPPublicKey key : ring) {
            if (isPinned(key, pinned)) {
                return true;
            }
        }
        return false;
    }

    /**
     * True when {@code key} (already known to be usable in {@code ring}) may sign: no pin, the key itself is
     * pinned, or it is a subkey of a pinned primary key. A ring's primary key is never let in because one of the
     * ring's subkeys is pinned: anyone can bind a copy of somebody else's public key to a key of his own.
     */
    private static boolean mayUse(PGPPublicKeyRing ring, PGPPublicKey key, Set<String> pinned) {
        return pinned.isEmpty() || isPinned(key, pinned) || !key.isMasterKey() && isPinned(ring.getPublicKey(), pinned);
    }

    /**
     * True when {@code key}'s fingerprint or its key ID as derived from that fingerprint is pinned; never for a key
     * of version 3, whose ID is not derived from anything its maker cannot choose.
     */
    private static boolean isPinned(PGPPublicKey key, Set<String> pinned) {
        return key.getVersion() >= 4 && (pinned.contains(fingerprintKeyId(key)) || pinned.contains(fingerprint(key)));
    }

    /** A v4 key's ID is the low 64 bits of its fingerprint; a v5 or v6 key's, the high 64 bits (RFC 9580, 5.5.4). */
    private static String fingerprintKeyId(PGPPublicKey key) {
        byte[] fingerprint = key.getFingerprint();
        int from = key.getVersion() == 4 ? fingerprint.length - 8 : 0;
        return java.util.HexFormat.of().withUpperCase().formatHex(fingerprint, from, from + 8);
    }

    private static String fingerprint(PGPPublicKey key) {
        return java.util.HexFormat.of().withUpperCase().formatHex(key.getFingerprint());
    }

    private static boolean verifies(PGPSignature signature, PGPPublicKey key, byte[] document) throws PGPException {
        signature.init(new BcPGPContentVerifierBuilderProvider(), key);
        signature.update(document);
        return signature.verify();
    }

    private static List<PGPSignature> readSignatures(byte[] signature) {
        List<PGPSignature> result = new ArrayList<>();
        try (InputStream in = PGPUtil.getDecoderStream(new ByteArrayInputStream(signature))) {
            BcPGPObjectFactory factory = new BcPGPObjectFactory(in);
            Object next;
            while ((next = factory.nextObject()) != null) {
                if (next instanceof PGPCompressedData compressed) {
                    factory = new BcPGPObjectFactory(compressed.getDataStream());
                } else if (next instanceof PGPSignatureList list) {
                    list.forEach(result::add);
                }
            }
        } catch (IOException | PGPException | RuntimeException e) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the SHA256SUMS signature is not a valid OpenPGP signature: " + e.getMessage());
        }
        if (result.isEmpty()) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE, "the SHA256SUMS signature file holds no OpenPGP signature");
        }
        return result;
    }

    private static PGPPublicKeyRingCollection readKeys(String armored) {
        try (InputStream in =
                PGPUtil.getDecoderStream(new ByteArrayInputStream(armored.getBytes(StandardCharsets.US_ASCII)))) {
            return new PGPPublicKeyRingCollection(in, new BcKeyFingerprintCalculator());
        } catch (IOException | PGPException | RuntimeException e) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the origin's signing key is not a valid ASCII-armored OpenPGP public key: " + e.getMessage());
        }
    }

    private static String keyId(long id) {
        return String.format(Locale.ROOT, "%016X", id);
    }
}
