package io.providermirror.upstream.verify;

import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Optional;
import java.util.function.Supplier;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;

/**
 * The bounds on the work one verification of a SHA256SUMS signature does on the origin's signing keys, which the
 * origin could otherwise make as large as its download document allows (the CLI sets none, while an honest key
 * carries a few user IDs, subkeys and a few dozen self-signatures):
 * <ul>
 *   <li>at most {@link #LIMIT} signatures checked (key revocations, self-signatures on user IDs, subkey bindings and
 *       revocations, back-signatures), over every key ring it reads: each is a public-key operation as long as the
 *       key (Bouncy Castle reads RSA keys of up to 15360 bits, 1.6 ms each);
 *   <li>at most {@link #MAX_USER_IDS} user IDs, {@link #MAX_SUBKEYS} subkeys and {@link #MAX_SIGNATURES}
 *       signatures of any kind (certifications by other keys included) in a key ring, counted before anything
 *       else is read of it: Bouncy Castle looks each user ID's signatures up among all of them, so the rules' walk
 *       over user IDs grows with their number squared (40,000 user IDs, 270 KB armored, took 27 s), and the
 *       search for a signature's key walks them again for each signature in the file;
 *   <li>at most {@link #MAX_DETACHED} signatures in the signature file over SHA256SUMS (a release carries one,
 *       two while its maker changes keys).
 * </ul>
 * A key ring is judged once per verification ({@link #once}): a verification with pinned keys walks the origin's keys
 * a second time, and would otherwise pay, and count, every check of the pinned ones twice.
 * Not thread-safe: one verification, one thread.
 */
final class SignatureChecks {

    /** The most signature checks one verification makes: several times what an honest origin's keys need. */
    static final int LIMIT = 256;

    /** The most user IDs of a key ring the mirror reads. */
    static final int MAX_USER_IDS = 64;

    /** The most subkeys of a key ring the mirror reads. */
    static final int MAX_SUBKEYS = 64;

    /** The most signatures of any kind in a key ring the mirror reads. */
    static final int MAX_SIGNATURES = 1024;

    /** The most signatures in a signature file over SHA256SUMS the mirror reads. */
    static final int MAX_DETACHED = 16;

    private int left = LIMIT;

    private final IdentityHashMap<PGPPublicKeyRing, Optional<String>> judged = new IdentityHashMap<>();

    /**
     * Lets {@code ring} be read: counts its user IDs, subkeys and signatures, in one pass over each.
     *
     * @throws VerificationException when it has more than {@link #MAX_USER_IDS}, {@link #MAX_SUBKEYS} or
     *     {@link #MAX_SIGNATURES}
     */
    static void admit(PGPPublicKeyRing ring) {
        PGPPublicKey primary = ring.getPublicKey();
        int userIds = count(primary.getRawUserIDs(), MAX_USER_IDS);
        int subkeys = count(ring.getPublicKeys(), MAX_SUBKEYS + 1) - 1;
        int signatures = 0;
        for (Iterator<PGPPublicKey> keys = ring.getPublicKeys(); keys.hasNext() && signatures <= MAX_SIGNATURES; ) {
            signatures += count(keys.next().getSignatures(), MAX_SIGNATURES - signatures);
        }
        if (signatures > MAX_SIGNATURES) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the origin's signing key " + SigningKeyRules.keyId(primary.getKeyID()) + " carries more than "
                            + MAX_SIGNATURES + " signatures: the mirror reads no more in a key, where an honest key"
                            + " carries a few dozen");
        }
        if (userIds > MAX_USER_IDS || subkeys > MAX_SUBKEYS) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the origin's signing key " + SigningKeyRules.keyId(primary.getKeyID()) + " carries more than "
                            + (userIds > MAX_USER_IDS ? MAX_USER_IDS + " user IDs" : MAX_SUBKEYS + " subkeys")
                            + ": the mirror reads no more in a key, where an honest key has a few");
        }
    }

    /**
     * Admits the next signature of the signature file over SHA256SUMS, {@code alreadyRead} having been read before it.
     *
     * @throws VerificationException when {@link #MAX_DETACHED} have been read already
     */
    static void admitDetached(int alreadyRead) {
        if (alreadyRead >= MAX_DETACHED) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the SHA256SUMS signature file holds more than " + MAX_DETACHED + " signatures: the mirror reads"
                            + " no more, where a release carries one or two");
        }
    }

    /** How many {@code items} there are, counting no further than one past {@code bound}. */
    private static int count(Iterator<?> items, int bound) {
        int count = 0;
        while (items.hasNext() && count <= bound) {
            items.next();
            count++;
        }
        return count;
    }

    /**
     * Counts one check about to be made.
     *
     * @throws VerificationException when the verification has made {@link #LIMIT} checks already
     */
    void spend() {
        if (left == 0) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the origin's signing keys carry more than " + LIMIT + " signatures to check (self-signatures,"
                            + " bindings, revocations) before the signature over SHA256SUMS is judged; the mirror"
                            + " checks at most " + LIMIT + ", where an honest key needs a few dozen");
        }
        left--;
    }

    /**
     * The verdict this verification reached on {@code ring} (the same object) already, else {@code judge}'s,
     * remembered. A judgement that throws is not remembered: it ends the verification.
     */
    Optional<String> once(PGPPublicKeyRing ring, Supplier<Optional<String>> judge) {
        Optional<String> verdict = judged.get(ring);
        if (verdict == null) {
            verdict = judge.get();
            judged.put(ring, verdict);
        }
        return verdict;
    }
}
