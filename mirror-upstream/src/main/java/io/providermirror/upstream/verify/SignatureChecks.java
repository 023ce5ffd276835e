package io.providermirror.upstream.verify;

import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Optional;
import java.util.function.Supplier;
import org.bouncycastle.bcpg.BCPGKey;
import org.bouncycastle.bcpg.DSAPublicBCPGKey;
import org.bouncycastle.bcpg.RSAPublicBCPGKey;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;

/**
 * The bounds on the work one verification of a SHA256SUMS signature does on the origin's signing keys, which the
 * origin could otherwise make as large as its download document allows (the CLI sets none, while an honest key
 * carries a few user IDs, subkeys and a few dozen self-signatures):
 * <ul>
 *   <li>at most {@link #LIMIT} signatures checked (key revocations, self-signatures on user IDs, subkey bindings and
 *       revocations, back-signatures), over every key ring it reads: each is a public-key operation as long as the
 *       key (RSA keys of up to {@link #MAX_RSA_MODULUS_BITS} bits are read);
 *   <li>at most {@link #MAX_USER_IDS} user IDs, {@link #MAX_SUBKEYS} subkeys and {@link #MAX_SIGNATURES}
 *       signatures of any kind (certifications by other keys included) in a key ring, counted before anything
 *       else is read of it: Bouncy Castle looks each user ID's signatures up among all of them, so the rules' walk
 *       over user IDs grows with their number squared (40,000 user IDs, 270 KB armored, took 27 s), and the
 *       search for a signature's key walks them again for each signature in the file;
 *   <li>at most {@link #MAX_DETACHED} signatures in the signature file over SHA256SUMS (a release carries one,
 *       two while its maker changes keys);
 *   <li>at most {@link #MAX_RINGS} key rings judged (the keys the origin lists are judged in order until one holds
 *       the signer, as the CLI reads them one after another; an origin lists one, two while its maker changes keys);
 *   <li>RSA moduli of at most {@link #MAX_RSA_MODULUS_BITS} bits and DSA parameters of at most {@link
 *       #MAX_DSA_P_BITS} and {@link #MAX_DSA_Q_BITS} bits, and at most {@link #MAX_LARGE_KEYS} keys of more than
 *       {@link #LARGE_KEY_BITS} bits, checked before any signature of the ring: Bouncy Castle
 *       checks a key the first time it is used, an RSA modulus by Miller-Rabin rounds each as long as the key (0.1 s
 *       at 4096 bits, 0.5 s at 8192, 2 s at 16384 on a busy 2-core machine), a DSA key's public value by an
 *       exponentiation by the subgroup order modulo the prime, which the origin could make 65535 bits each: minutes
 *       per key.
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

    /** The most key rings one verification judges. */
    static final int MAX_RINGS = 8;

    /** Keys of more bits than this are large: GnuPG's largest without {@code --enable-large-rsa}. */
    static final int LARGE_KEY_BITS = 4096;

    /** The most large keys one verification reads: each costs about a second when it is first used. */
    static final int MAX_LARGE_KEYS = 4;

    /** The longest RSA modulus the mirror reads: GnuPG makes at most 4096 bits, 8192 with --enable-large-rsa. */
    static final int MAX_RSA_MODULUS_BITS = 8192;

    /** The longest DSA prime the mirror reads: FIPS 186-4's largest. */
    static final int MAX_DSA_P_BITS = 3072;

    /** The longest DSA subgroup order the mirror reads: FIPS 186-4's largest. */
    static final int MAX_DSA_Q_BITS = 256;

    private int left = LIMIT;

    private int largeKeys;

    private final IdentityHashMap<PGPPublicKeyRing, Optional<String>> judged = new IdentityHashMap<>();

    /**
     * Lets {@code ring} be read: counts its user IDs, subkeys and signatures, in one pass over each, then measures its
     * keys.
     *
     * @throws VerificationException when it has more than {@link #MAX_USER_IDS}, {@link #MAX_SUBKEYS} or
     *     {@link #MAX_SIGNATURES}, or a key larger than the mirror reads, or one large key more than it reads
     */
    void admit(PGPPublicKeyRing ring) {
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
        for (PGPPublicKey key : ring) {
            admitSize(key);
        }
    }

    private void admitSize(PGPPublicKey key) {
        BCPGKey material = key.getPublicKeyPacket().getKey();
        int bits = material instanceof RSAPublicBCPGKey rsa
                ? rsa.getModulus().bitLength()
                : material instanceof DSAPublicBCPGKey dsa ? dsa.getP().bitLength() : 0;
        String refused = null;
        if (material instanceof RSAPublicBCPGKey && bits > MAX_RSA_MODULUS_BITS) {
            refused = "an RSA modulus of " + bits + " bits: the mirror reads at most " + MAX_RSA_MODULUS_BITS
                    + ", where GnuPG makes keys of at most 4096";
        } else if (material instanceof DSAPublicBCPGKey dsa
                && (bits > MAX_DSA_P_BITS || dsa.getQ().bitLength() > MAX_DSA_Q_BITS)) {
            refused = "DSA parameters of " + bits + " and "
                    + dsa.getQ().bitLength()
                    + " bits: the mirror reads at most " + MAX_DSA_P_BITS + " and " + MAX_DSA_Q_BITS
                    + " (FIPS 186-4's largest)";
        } else if (bits > LARGE_KEY_BITS && ++largeKeys > MAX_LARGE_KEYS) {
            refused = "a key of " + bits + " bits, one more than the " + MAX_LARGE_KEYS + " keys of more than "
                    + LARGE_KEY_BITS + " bits the mirror reads for a verification";
        }
        if (refused != null) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the origin's signing " + (key.isMasterKey() ? "key " : "subkey ")
                            + SigningKeyRules.keyId(key.getKeyID()) + " has " + refused
                            + " (checking a larger key takes seconds of CPU)");
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
            if (judged.size() >= MAX_RINGS) {
                throw new VerificationException(
                        VerificationException.Check.SIGNATURE,
                        "the origin's signing keys ask for more than " + MAX_RINGS + " key rings to be checked before"
                                + " one holds the signer: the mirror checks no more, where an origin lists one or two");
            }
            verdict = judge.get();
            judged.put(ring, verdict);
        }
        return verdict;
    }
}
