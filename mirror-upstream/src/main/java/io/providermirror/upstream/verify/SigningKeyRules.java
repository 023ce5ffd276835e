package io.providermirror.upstream.verify;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.bouncycastle.bcpg.RSAPublicBCPGKey;
import org.bouncycastle.bcpg.SignatureSubpacketTags;
import org.bouncycastle.bcpg.sig.KeyFlags;
import org.bouncycastle.openpgp.PGPException;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.openpgp.PGPSignature;
import org.bouncycastle.openpgp.PGPSignatureList;
import org.bouncycastle.openpgp.PGPSignatureSubpacketVector;
import org.bouncycastle.openpgp.operator.bc.BcPGPContentVerifierBuilderProvider;

/**
 * Judges whether a key may verify a signature the way the CLI's OpenPGP library (ProtonMail go-crypto, openpgp v1
 * API, as in Terraform and OpenTofu) judges it, so that the mirror never accepts a signature the CLI would refuse.
 * That library drops a whole key ring when any signature on a subkey, any self-signature on a user ID or any key
 * revocation does not verify, when a subkey binding flagged for signing lacks a valid back-signature by the
 * subkey, and when an RSA key's public exponent is longer than 3 bytes; it then uses a key only when the key flags
 * of its self-signature (newest binding for a subkey, the primary user ID's for a primary key) include signing, and
 * refuses a revoked key.
 */
final class SigningKeyRules {

    /** The longest RSA public exponent the CLI's library reads: 3 bytes. */
    private static final int MAX_RSA_EXPONENT_BITS = 24;

    private SigningKeyRules() {}

    /**
     * Why the CLI's library would not read {@code ring} (it drops the whole key ring), or empty when it would: a
     * signature on it that does not verify, a subkey flagged for signing without a good back-signature, no user ID
     * with a self-signature.
     */
    static Optional<String> whyUnreadable(PGPPublicKeyRing ring) {
        return whyUnreadable(ring, new SignatureChecks());
    }

    /**
     * {@link #whyUnreadable(PGPPublicKeyRing)} counting each signature it checks in {@code checks}, which a
     * verification shares over every key ring it reads; a ring it judged before is not judged again.
     *
     * @throws VerificationException when {@code checks} runs out
     */
    static Optional<String> whyUnreadable(PGPPublicKeyRing ring, SignatureChecks checks) {
        return checks.once(ring, () -> judge(ring, checks));
    }

    private static Optional<String> judge(PGPPublicKeyRing ring, SignatureChecks checks) {
        PGPPublicKey primary = ring.getPublicKey();
        try {
            Optional<String> unreadable = whyNotRead(ring, checks);
            if (unreadable.isEmpty() && primaryIdentity(primary).isEmpty()) {
                unreadable = Optional.of("the key " + keyId(primary.getKeyID())
                        + " has no user ID with a self-signature, which the CLI requires");
            }
            return unreadable.map(
                    why -> why + "; the CLI's OpenPGP library ignores the whole key " + keyId(primary.getKeyID()));
        } catch (VerificationException e) {
            throw e;
        } catch (PGPException | RuntimeException e) {
            return Optional.of("the key " + keyId(primary.getKeyID()) + " cannot be read: " + e.getMessage());
        }
    }

    /**
     * Why {@code key} of a readable {@code ring} is not offered for signing by the CLI's library (it looks a
     * signature's issuer up among keys whose self-signature flags them for signing), or empty when it is.
     */
    static Optional<String> whyNotSigning(PGPPublicKeyRing ring, PGPPublicKey key) {
        if (key.isMasterKey()) {
            return whyNotFlaggedForSigning(
                    selfSignature(ring, key).orElseThrow(), "the primary key " + keyId(key.getKeyID()));
        }
        return whyNotFlaggedForSigning(selfSignature(ring, key).orElseThrow(), "the subkey " + keyId(key.getKeyID()));
    }

    /**
     * Why the CLI refuses a signature {@code key} of a readable {@code ring} made (its primary key, its primary user
     * ID or the subkey is revoked), or empty when it does not. The CLI checks this only once the signature verified,
     * and stops there.
     */
    static Optional<String> whyRevoked(PGPPublicKeyRing ring, PGPPublicKey key) {
        PGPPublicKey primary = ring.getPublicKey();
        if (primary.getSignaturesOfType(PGPSignature.KEY_REVOCATION).hasNext()) {
            return Optional.of("the key " + keyId(primary.getKeyID()) + " is revoked");
        }
        if (primaryIdentity(primary).map(UserIdentity::revoked).orElse(false)) {
            return Optional.of("the primary user ID of the key " + keyId(primary.getKeyID()) + " is revoked");
        }
        if (!key.isMasterKey()
                && key.getSignaturesOfType(PGPSignature.SUBKEY_REVOCATION).hasNext()) {
            return Optional.of("the subkey " + keyId(key.getKeyID()) + " is revoked");
        }
        return Optional.empty();
    }

    /**
     * The self-signature the CLI's library reads {@code key}'s flags and lifetime from: its primary user ID's newest
     * self-signature for a primary key, its newest binding for a subkey; empty when there is none.
     */
    static Optional<PGPSignature> selfSignature(PGPPublicKeyRing ring, PGPPublicKey key) {
        if (key.isMasterKey()) {
            return primaryIdentity(ring.getPublicKey()).map(UserIdentity::selfSignature);
        }
        PGPSignature newest = null;
        for (PGPSignature binding : iterable(key.getSignaturesOfType(PGPSignature.SUBKEY_BINDING))) {
            if (newest == null || created(binding).isAfter(created(newest))) {
                newest = binding;
            }
        }
        return Optional.ofNullable(newest);
    }

    /**
     * Why the CLI's library would not read {@code key}'s RSA public exponent: longer than 3 bytes (its RSA key parser
     * refuses it as a large public exponent, and the key ring goes with it). Checked before any signature of the ring:
     * a long exponent makes each verification with the key a modular exponentiation as long as the exponent, which an
     * origin could otherwise have the mirror spend on every self-signature it lists.
     */
    private static Optional<String> whyExponentUnread(PGPPublicKey key) {
        if (key.getPublicKeyPacket().getKey() instanceof RSAPublicBCPGKey rsa
                && rsa.getPublicExponent().bitLength() > MAX_RSA_EXPONENT_BITS) {
            return Optional.of("the " + (key.isMasterKey() ? "key " : "subkey ") + keyId(key.getKeyID())
                    + " has an RSA public exponent of "
                    + rsa.getPublicExponent().bitLength()
                    + " bits, longer than the 3 bytes the CLI's OpenPGP library reads");
        }
        return Optional.empty();
    }

    /** Why the CLI's library would not read {@code ring}'s signatures, or empty when it would. */
    private static Optional<String> whyNotRead(PGPPublicKeyRing ring, SignatureChecks checks) throws PGPException {
        checks.admit(ring);
        PGPPublicKey primary = ring.getPublicKey();
        for (PGPPublicKey key : ring) {
            Optional<String> exponent = whyExponentUnread(key);
            if (exponent.isPresent()) {
                return exponent;
            }
        }
        for (PGPSignature revocation : iterable(primary.getSignaturesOfType(PGPSignature.KEY_REVOCATION))) {
            checks.spend();
            if (!verifiesKey(revocation, primary)) {
                return Optional.of(
                        "the key " + keyId(primary.getKeyID()) + " carries a revocation that does not verify with it");
            }
        }
        for (byte[] userId : iterable(primary.getRawUserIDs())) {
            for (PGPSignature signature : iterable(primary.getSignaturesForID(userId))) {
                if (!isUserIdSignatureType(signature.getSignatureType())) {
                    return Optional.of("a signature on a user ID of the key " + keyId(primary.getKeyID())
                            + " is of type " + signature.getSignatureType() + ", not a certification");
                }
                if (signature.getKeyID() != primary.getKeyID()) {
                    continue; // a certification by another key, which the CLI does not check
                }
                checks.spend();
                if (!verifiesUserId(signature, userId, primary)) {
                    return Optional.of("a self-signature on the user ID \"" + new String(userId, StandardCharsets.UTF_8)
                            + "\" of the key " + keyId(primary.getKeyID()) + " does not verify");
                }
            }
        }
        for (PGPPublicKey subkey : ring) {
            if (subkey.isMasterKey()) {
                continue;
            }
            String name = keyId(subkey.getKeyID());
            boolean bound = false;
            for (PGPSignature signature : iterable(subkey.getSignatures())) {
                int type = signature.getSignatureType();
                if (type != PGPSignature.SUBKEY_BINDING && type != PGPSignature.SUBKEY_REVOCATION) {
                    return Optional.of("the subkey " + name + " carries a signature of type " + type
                            + ", neither a binding nor a revocation");
                }
                checks.spend();
                if (!verifiesBinding(signature, primary, subkey, primary)) {
                    return Optional.of("a binding or revocation of the subkey " + name
                            + " does not verify with its primary key " + keyId(primary.getKeyID()));
                }
                bound |= type == PGPSignature.SUBKEY_BINDING;
                if (flags(signature)
                        .map(flags -> (flags & KeyFlags.SIGN_DATA) != 0)
                        .orElse(false)) {
                    Optional<String> back = whyNoBackSignature(signature, primary, subkey, checks);
                    if (back.isPresent()) {
                        return back;
                    }
                }
            }
            if (!bound) {
                return Optional.of("the subkey " + name + " has no binding signature");
            }
        }
        return Optional.empty();
    }

    /**
     * A subkey flagged for signing must have signed its own binding back (RFC 4880 5.2.1, "primary key binding"),
     * or anyone could claim somebody else's signing key as his subkey.
     */
    private static Optional<String> whyNoBackSignature(
            PGPSignature binding, PGPPublicKey primary, PGPPublicKey subkey, SignatureChecks checks)
            throws PGPException {
        String name = keyId(subkey.getKeyID());
        List<PGPSignature> embedded = embeddedSignatures(binding);
        if (embedded.isEmpty()) {
            return Optional.of("the signing subkey " + name
                    + " has no cross-signature (back-signature) from itself, which the CLI requires");
        }
        if (embedded.size() > 1) {
            return Optional.of(
                    "the binding of the signing subkey " + name + " carries more than one embedded signature");
        }
        PGPSignature back = embedded.get(0);
        if (back.getSignatureType() != PGPSignature.PRIMARYKEY_BINDING) {
            return Optional.of("the cross-signature of the signing subkey " + name + " is of type "
                    + back.getSignatureType() + ", not a primary key binding");
        }
        checks.spend();
        if (!verifiesBinding(back, primary, subkey, subkey)) {
            return Optional.of("the cross-signature (back-signature) of the signing subkey " + name
                    + " does not verify with the subkey itself, which the CLI requires");
        }
        return Optional.empty();
    }

    private static Optional<String> whyNotFlaggedForSigning(PGPSignature selfSignature, String key) {
        Optional<Integer> flags = flags(selfSignature);
        if (flags.isEmpty()) {
            return Optional.of(key + " carries no key flags in its self-signature or binding, so the CLI does not"
                    + " let it sign");
        }
        if ((flags.get() & KeyFlags.SIGN_DATA) == 0) {
            return Optional.of(key + " is not flagged for signing (its key flags are 0x"
                    + Integer.toHexString(flags.get()) + "), so the CLI does not let it sign");
        }
        return Optional.empty();
    }

    /** The key flags of the hashed area (the CLI reads no other), or empty when there are none. */
    private static Optional<Integer> flags(PGPSignature signature) {
        PGPSignatureSubpacketVector hashed = signature.getHashedSubPackets();
        if (hashed == null || !hashed.hasSubpacket(SignatureSubpacketTags.KEY_FLAGS)) {
            return Optional.empty();
        }
        return Optional.of(hashed.getKeyFlags());
    }

    /** The signatures embedded in {@code binding}, hashed area first: a signing subkey's back-signature. */
    static List<PGPSignature> embeddedSignatures(PGPSignature binding) throws PGPException {
        List<PGPSignature> embedded = new ArrayList<>();
        embedded(binding.getHashedSubPackets()).forEach(embedded::add);
        embedded(binding.getUnhashedSubPackets()).forEach(embedded::add);
        return embedded;
    }

    private static PGPSignatureList embedded(PGPSignatureSubpacketVector subpackets) throws PGPException {
        return subpackets == null ? new PGPSignatureList(new PGPSignature[0]) : subpackets.getEmbeddedSignatures();
    }

    /** A user ID with its newest self-signature and whether the primary key revoked it. */
    private record UserIdentity(PGPSignature selfSignature, int revocations, boolean primaryFlag) {
        boolean revoked() {
            return revocations > 0;
        }

        /** The CLI's preference: fewer revocations, then the primary user ID flag, then the newest. */
        boolean preferredTo(UserIdentity other) {
            if (revocations != other.revocations) {
                return revocations < other.revocations;
            }
            if (primaryFlag != other.primaryFlag) {
                return primaryFlag;
            }
            return created(selfSignature).isAfter(created(other.selfSignature));
        }
    }

    /** The identity whose self-signature the CLI reads a primary key's flags from (all of them verify by now). */
    private static Optional<UserIdentity> primaryIdentity(PGPPublicKey primary) {
        UserIdentity best = null;
        for (byte[] userId : iterable(primary.getRawUserIDs())) {
            PGPSignature newest = null;
            int revocations = 0;
            for (PGPSignature signature : iterable(primary.getSignaturesForID(userId))) {
                if (signature.getKeyID() != primary.getKeyID()) {
                    continue;
                }
                if (signature.getSignatureType() == PGPSignature.CERTIFICATION_REVOCATION) {
                    revocations++;
                } else if (newest == null || created(signature).isAfter(created(newest))) {
                    newest = signature;
                }
            }
            if (newest != null) {
                PGPSignatureSubpacketVector hashed = newest.getHashedSubPackets();
                UserIdentity identity =
                        new UserIdentity(newest, revocations, hashed != null && hashed.isPrimaryUserID());
                if (best == null || identity.preferredTo(best)) {
                    best = identity;
                }
            }
        }
        return Optional.ofNullable(best);
    }

    private static boolean isUserIdSignatureType(int type) {
        return type == PGPSignature.DEFAULT_CERTIFICATION
                || type == PGPSignature.NO_CERTIFICATION
                || type == PGPSignature.CASUAL_CERTIFICATION
                || type == PGPSignature.POSITIVE_CERTIFICATION
                || type == PGPSignature.CERTIFICATION_REVOCATION;
    }

    private static boolean verifiesKey(PGPSignature signature, PGPPublicKey key) throws PGPException {
        signature.init(new BcPGPContentVerifierBuilderProvider(), key);
        return signature.verifyCertification(key);
    }

    private static boolean verifiesUserId(PGPSignature signature, byte[] userId, PGPPublicKey primary)
            throws PGPException {
        signature.init(new BcPGPContentVerifierBuilderProvider(), primary);
        return signature.verifyCertification(userId, primary);
    }

    /** A signature over the primary key and the subkey, made by {@code signer} (the primary, or the subkey itself). */
    private static boolean verifiesBinding(
            PGPSignature signature, PGPPublicKey primary, PGPPublicKey subkey, PGPPublicKey signer)
            throws PGPException {
        signature.init(new BcPGPContentVerifierBuilderProvider(), signer);
        return signature.verifyCertification(primary, subkey);
    }

    private static Instant created(PGPSignature signature) {
        return signature.getCreationTime().toInstant();
    }

    private static <T> Iterable<T> iterable(Iterator<T> iterator) {
        return () -> iterator;
    }

    /** A key ID as the CLI prints it: 16 upper-case hex digits. */
    static String keyId(long id) {
        return String.format(Locale.ROOT, "%016X", id);
    }
}
