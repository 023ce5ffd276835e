package io.providermirror.upstream.verify;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;
import org.bouncycastle.openpgp.PGPException;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.openpgp.PGPSignature;
import org.bouncycastle.openpgp.operator.bc.BcPGPContentVerifierBuilderProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verifies a detached OpenPGP signature (binary, as the registry protocol says, or ASCII-armored) over a
 * document with one of a set of ASCII-armored public keys, as the CLI does. The listed keys are tried in order, and
 * the first one that holds the issuer of a signature decides: a key the CLI's OpenPGP library cannot read, a
 * signature that does not verify with that key, a revoked key ({@link SigningKeyRules}) or an expired signature
 * ({@link SignatureDates}) refuses the signature whatever later keys would say; an expired key is tolerated, as
 * Terraform tolerates it. A key signs only when the library would let it: flagged for signing, a subkey bound by its
 * primary key and cross-signed by itself. Keys and signatures of OpenPGP version 3 count for nothing (the library
 * does not read v3 keys): a v3 key's ID is the low 64 bits of its RSA modulus, which whoever makes the key
 * chooses, so anyone can make one with another key's ID. Dates are judged at a time the caller gives.
 */
public final class OpenPgpSignatures {

    private static final Logger LOG = LoggerFactory.getLogger(OpenPgpSignatures.class);

    private OpenPgpSignatures() {}

    /**
     * Returns the hex key ID of the key that made a valid signature over {@code document}, its dates judged at
     * {@code at}.
     *
     * @throws VerificationException when the CLI would refuse the signature
     */
    public static String verify(byte[] document, byte[] signature, List<String> armoredKeys, Instant at) {
        return verify(document, signature, armoredKeys, Set.of(), "", at);
    }

    /**
     * As {@link #verify(byte[], byte[], List, Instant)}, and when {@code pinned} is not empty a pinned key must have
     * made the signature too: a key whose own fingerprint, or ID (16 hex digits: for these keys, part of the
     * fingerprint), is pinned, or a subkey validly bound to a primary key that is. Other keys, even in the same
     * armored block or key ring as a pinned one, sign nothing.
     *
     * @param pinSetting how to name the pin in an error, e.g. the configuration key
     */
    public static String verify(
            byte[] document,
            byte[] signature,
            List<String> armoredKeys,
            Set<String> pinned,
            String pinSetting,
            Instant at) {
        if (armoredKeys.isEmpty()) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the origin lists no signing keys, so the signature over SHA256SUMS cannot be checked");
        }
        List<PGPSignature> signatures = SignatureFile.read(signature).stream()
                .filter(candidate -> candidate.getVersion() >= 4)
                .toList();
        if (signatures.isEmpty()) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the SHA256SUMS signature is of "
                            + "OpenPGP version 3, which the mirror does not accept (a signature of version 4 or later is needed)");
        }
        // Each listed key on its own, as the CLI reads them; a key ring of one of them is one certificate.
        List<List<PGPPublicKeyRing>> listed = new ArrayList<>();
        List<String> outdated = new ArrayList<>();
        for (String armored : armoredKeys) {
            List<PGPPublicKeyRing> rings = ArmoredKeys.read(armored);
            rings.stream()
                    .filter(ring -> ring.getPublicKey().getVersion() < 4)
                    .forEach(ring -> outdated.add(
                            SigningKeyRules.keyId(ring.getPublicKey().getKeyID())));
            listed.add(rings);
        }
        if (listed.stream()
                .flatMap(List::stream)
                .allMatch(ring -> ring.getPublicKey().getVersion() < 4)) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the origin's signing key(s) ("
                            + String.join(", ", outdated)
                            + ") are of OpenPGP version 3, which neither the CLI nor the mirror "
                            + "accepts: a version 3 key ID is chosen by whoever makes the key");
        }
        SignatureChecks checks = new SignatureChecks();
        String signer = firstSigner(new Search(document, signatures, listed, (ring, key) -> true, "", at, checks));
        if (pinned.isEmpty()) {
            return signer;
        }
        List<List<PGPPublicKeyRing>> pinnedRings = listed.stream()
                .map(rings -> rings.stream()
                        .filter(ring -> ring.getPublicKey().getVersion() >= 4 && mentionsPin(ring, pinned))
                        .toList())
                .toList();
        if (pinnedRings.stream().allMatch(List::isEmpty)) {
            List<String> refused = new ArrayList<>();
            listed.stream()
                    .flatMap(List::stream)
                    .filter(ring -> ring.getPublicKey().getVersion() >= 4)
                    .forEach(ring -> refused.add(fingerprint(ring.getPublicKey())));
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "none of the origin's signing keys ("
                            + String.join(", ", refused) + ") is among the keys pinned in " + pinSetting + " " + pinned
                            + (outdated.isEmpty()
                                    ? ""
                                    : "; keys of OpenPGP version 3 (" + String.join(", ", outdated)
                                            + ") sign nothing"));
        }
        return firstSigner(new Search(
                document,
                signatures,
                pinnedRings,
                (ring, key) -> mayUse(ring, key, pinned),
                " that " + pinSetting + " " + pinned + " lets sign",
                at,
                checks));
    }

    /** One pass over the listed keys; {@code restriction} names those it may use; {@code checks} spans both passes. */
    private record Search(
            byte[] document,
            List<PGPSignature> signatures,
            List<List<PGPPublicKeyRing>> listed,
            BiPredicate<PGPPublicKeyRing, PGPPublicKey> mayUse,
            String restriction,
            Instant at,
            SignatureChecks checks) {}

    /** A key offered for signing, in its key ring. */
    private record Candidate(PGPPublicKeyRing ring, PGPPublicKey key) {}

    /**
     * The CLI's pass over the listed keys: the first listed key that holds, among the keys it offers for signing,
     * the issuer of one of the signatures decides; a listed key holding none is passed over.
     */
    private static String firstSigner(Search search) {
        try {
            return walk(search);
        } catch (VerificationException e) {
            throw e;
        } catch (RuntimeException e) {
            // Bouncy Castle's complaint about a malformed packet: hostile input is refused, never a server error.
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the origin's signing keys or the signature over SHA256SUMS cannot be read: " + e.getMessage());
        }
    }

    private static String walk(Search search) {
        Set<String> unusable = new LinkedHashSet<>();
        for (int index = 0; index < search.listed().size(); index++) {
            List<PGPPublicKeyRing> rings = search.listed().get(index);
            if (rings.isEmpty()) {
                continue; // nothing in it may sign in this pass
            }
            String which = "the origin's signing key #" + (index + 1);
            List<PGPPublicKeyRing> readable = new ArrayList<>();
            List<String> unreadable = new ArrayList<>();
            for (PGPPublicKeyRing ring : rings) {
                if (ring.getPublicKey().getVersion() < 4) {
                    unreadable.add("the key "
                            + SigningKeyRules.keyId(ring.getPublicKey().getKeyID()) + " is of OpenPGP version 3");
                } else {
                    SigningKeyRules.whyUnreadable(ring, search.checks())
                            .ifPresentOrElse(unreadable::add, () -> readable.add(ring));
                }
            }
            if (readable.isEmpty()) {
                throw new VerificationException(
                        VerificationException.Check.SIGNATURE,
                        "the signature over SHA256SUMS does not verify: the CLI's OpenPGP library reads nothing of "
                                + which + " (" + String.join("; ", unreadable)
                                + "), and the CLI refuses a package at the first listed key it cannot read");
            }
            for (PGPSignature signature : search.signatures()) {
                List<Candidate> candidates = candidates(signature, readable, search.mayUse(), unusable);
                if (!candidates.isEmpty()) {
                    return decide(search, signature, candidates, which);
                }
            }
        }
        StringBuilder ids = new StringBuilder();
        for (PGPSignature candidate : search.signatures()) {
            ids.append(ids.length() == 0 ? "" : ", ").append(SigningKeyRules.keyId(candidate.getKeyID()));
        }
        throw new VerificationException(
                VerificationException.Check.SIGNATURE,
                "the signature over SHA256SUMS (made by key " + ids + ") does not verify with any of the origin's "
                        + search.listed().size() + " signing key(s)" + search.restriction()
                        + (unusable.isEmpty() ? "" : "; " + String.join("; ", unusable)));
    }

    /**
     * The keys of {@code rings} with {@code signature}'s issuer ID that the CLI's library offers for signing (and
     * the pass may use); why the others are not offered goes to {@code unusable}.
     */
    private static List<Candidate> candidates(
            PGPSignature signature,
            List<PGPPublicKeyRing> rings,
            BiPredicate<PGPPublicKeyRing, PGPPublicKey> mayUse,
            Set<String> unusable) {
        List<Candidate> candidates = new ArrayList<>();
        for (PGPPublicKeyRing ring : rings) {
            for (PGPPublicKey key : ring) {
                if (key.getKeyID() != signature.getKeyID() || key.getVersion() < 4) {
                    continue;
                }
                Optional<String> whyNot = SigningKeyRules.whyNotSigning(ring, key);
                if (whyNot.isPresent()) {
                    unusable.add(whyNot.get());
                } else if (mayUse.test(ring, key)) {
                    candidates.add(new Candidate(ring, key));
                }
            }
        }
        return candidates;
    }

    /**
     * The CLI's verdict on {@code signature} once a listed key holds its issuer: the first candidate it verifies with
     * is judged for revocation, then for dates; when it verifies with none, it is refused.
     */
    private static String decide(Search search, PGPSignature signature, List<Candidate> candidates, String which) {
        String issuer = SigningKeyRules.keyId(signature.getKeyID());
        for (Candidate candidate : candidates) {
            try {
                if (!verifies(signature, candidate.key(), search.document())) {
                    continue;
                }
            } catch (PGPException e) {
                continue; // a key that cannot check this signature is not the one that made it
            }
            Optional<String> revoked = SigningKeyRules.whyRevoked(candidate.ring(), candidate.key());
            if (revoked.isPresent()) {
                throw new VerificationException(
                        VerificationException.Check.SIGNATURE,
                        "the signature over SHA256SUMS by " + issuer + " verifies, but " + revoked.get()
                                + ", and the CLI refuses what a revoked key signed");
            }
            SignatureDates.Verdict dates =
                    SignatureDates.judge(candidate.ring(), candidate.key(), signature, search.at());
            if (dates.finding() == SignatureDates.Finding.SIGNATURE_EXPIRED) {
                throw new VerificationException(
                        VerificationException.Check.SIGNATURE_EXPIRED,
                        dates.detail() + " (judged at " + search.at() + "), and the CLI refuses an expired signature");
            }
            if (dates.finding() == SignatureDates.Finding.KEY_EXPIRED) {
                LOG.info(
                        "accepting a signature by {} although {}, as the CLI tolerates an expired key",
                        issuer,
                        dates.detail());
            }
            return issuer;
        }
        throw new VerificationException(
                VerificationException.Check.SIGNATURE,
                "the signature over SHA256SUMS made by key " + issuer + " does not verify with " + which
                        + ", which holds that key" + search.restriction()
                        + " (the CLI refuses a package at the first listed key that holds the signature's issuer)");
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

    /**
     * The ID of the (first) primary key in an ASCII-armored key, 16 upper-case hex digits: the {@code key_id} the
     * provider registry protocol names it by.
     *
     * @throws VerificationException when {@code armored} holds no OpenPGP public key
     */
    public static String primaryKeyId(String armored) {
        Iterator<PGPPublicKeyRing> rings = ArmoredKeys.read(armored).iterator();
        if (!rings.hasNext()) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE, "the origin's signing key holds no OpenPGP public key");
        }
        return SigningKeyRules.keyId(rings.next().getPublicKey().getKeyID());
    }

    /**
     * The whole fingerprint (upper-case hex) of the key with ID {@code keyId} (as {@link #verify} returns it) among
     * {@code armoredKeys}, a subkey's own; empty when none of them holds it or one cannot be read.
     */
    public static Optional<String> fingerprint(List<String> armoredKeys, String keyId) {
        for (String armored : armoredKeys) {
            try {
                for (PGPPublicKeyRing ring : ArmoredKeys.read(armored)) {
                    for (PGPPublicKey key : ring) {
                        if (key.getVersion() >= 4
                                && SigningKeyRules.keyId(key.getKeyID()).equals(keyId)) {
                            return Optional.of(fingerprint(key));
                        }
                    }
                }
            } catch (VerificationException e) {
                // unreadable: it cannot have made the signature either
            }
        }
        return Optional.empty();
    }
}
