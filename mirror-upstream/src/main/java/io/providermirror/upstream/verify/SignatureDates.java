package io.providermirror.upstream.verify;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bouncycastle.openpgp.PGPException;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.openpgp.PGPSignature;
import org.bouncycastle.openpgp.PGPSignatureSubpacketVector;

/**
 * Judges the dates of a verified signature as the CLI's OpenPGP library does at a given time (ProtonMail go-crypto
 * v1.0.0 in Terraform 1.11, unchanged in v1.1.3): first whether the signing key has expired (the primary key by its
 * primary user ID's self-signature, a signing subkey also by its binding; a key created after that time counts as
 * expired), then whether any of the signatures involved has (the signature itself, that self-signature, the
 * subkey's binding and its cross-signature; one created after that time counts as expired). The first finding is
 * the answer: Terraform tolerates an expired key, so a signature whose key has expired is never judged for its own
 * expiry; it refuses an expired signature.
 */
final class SignatureDates {

    private SignatureDates() {}

    /** What the dates say. */
    enum Finding {
        /** Nothing has expired. */
        CURRENT,
        /** The signing key has expired: the CLI tolerates it (and checks no signature's dates). */
        KEY_EXPIRED,
        /** A signature has expired while its key has not: the CLI refuses it. */
        SIGNATURE_EXPIRED
    }

    /** A finding and, unless {@link Finding#CURRENT}, what expired when. */
    record Verdict(Finding finding, String detail) {}

    /**
     * Judges {@code signature}, already verified with {@code key} of the readable {@code ring}, at {@code at}.
     */
    static Verdict judge(PGPPublicKeyRing ring, PGPPublicKey key, PGPSignature signature, Instant at) {
        PGPPublicKey primary = ring.getPublicKey();
        PGPSignature primarySelf = SigningKeyRules.selfSignature(ring, primary).orElseThrow();
        Optional<String> expired =
                keyExpired(primary, primarySelf, "the key " + SigningKeyRules.keyId(primary.getKeyID()), at);
        PGPSignature binding = null;
        if (expired.isEmpty() && !key.isMasterKey()) {
            binding = SigningKeyRules.selfSignature(ring, key).orElseThrow();
            expired = keyExpired(key, binding, "the subkey " + SigningKeyRules.keyId(key.getKeyID()), at);
        }
        if (expired.isPresent()) {
            return new Verdict(Finding.KEY_EXPIRED, expired.get());
        }
        List<Named> involved = new ArrayList<>();
        involved.add(new Named(signature, "the signature over SHA256SUMS by " + SigningKeyRules.keyId(key.getKeyID())));
        involved.add(new Named(
                primarySelf,
                "the self-signature of the key " + SigningKeyRules.keyId(primary.getKeyID()) + "'s primary user ID"));
        if (binding != null) {
            involved.add(new Named(binding, "the binding of the subkey " + SigningKeyRules.keyId(key.getKeyID())));
            backSignature(binding)
                    .ifPresent(back -> involved.add(new Named(
                            back, "the cross-signature of the subkey " + SigningKeyRules.keyId(key.getKeyID()))));
        }
        for (Named named : involved) {
            Optional<String> why = signatureExpired(named.signature(), named.name(), at);
            if (why.isPresent()) {
                return new Verdict(Finding.SIGNATURE_EXPIRED, why.get());
            }
        }
        return new Verdict(Finding.CURRENT, "");
    }

    private record Named(PGPSignature signature, String name) {}

    private static Optional<String> keyExpired(PGPPublicKey key, PGPSignature selfSignature, String name, Instant at) {
        PGPSignatureSubpacketVector hashed = selfSignature.getHashedSubPackets();
        return expired(
                key.getCreationTime().toInstant(),
                hashed == null ? 0 : hashed.getKeyExpirationTime(),
                name,
                "created",
                at);
    }

    private static Optional<String> signatureExpired(PGPSignature signature, String name, Instant at) {
        PGPSignatureSubpacketVector hashed = signature.getHashedSubPackets();
        return expired(
                signature.getCreationTime().toInstant(),
                hashed == null ? 0 : hashed.getSignatureExpirationTime(),
                name,
                "made",
                at);
    }

    /**
     * Why {@code name}, {@code made} at {@code created} and valid for {@code lifetime} seconds (none: 0), is not
     * valid {@code at}: made after it, or expired before it.
     */
    private static Optional<String> expired(Instant created, long lifetime, String name, String made, Instant at) {
        if (created.isAfter(at)) {
            return Optional.of(name + " was " + made + " on " + created + ", after " + at);
        }
        if (lifetime <= 0) {
            return Optional.empty();
        }
        Instant expires = created.plusSeconds(lifetime);
        return at.isAfter(expires)
                ? Optional.of(name + " expired on " + expires + " (" + made + " " + created + ", valid for "
                        + days(lifetime) + ")")
                : Optional.empty();
    }

    /** The back-signature a signing subkey's binding carries (its readability was checked with the ring's). */
    private static Optional<PGPSignature> backSignature(PGPSignature binding) {
        try {
            return SigningKeyRules.embeddedSignatures(binding).stream().findFirst();
        } catch (PGPException e) {
            return Optional.empty();
        }
    }

    private static String days(long seconds) {
        Duration lifetime = Duration.ofSeconds(seconds);
        return lifetime.toDays() >= 1 && lifetime.toSeconds() % 86_400 == 0
                ? lifetime.toDays() + " day(s)"
                : lifetime.toSeconds() + " second(s)";
    }
}
