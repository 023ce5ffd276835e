package io.providermirror.upstream.verify;

import java.util.List;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads an origin's first listed signing key ahead of its signature, while SHA256SUMS and the signature are still in
 * flight. The first use of an RSA key in the JVM is the dear part of a verification: Bouncy Castle checks the modulus
 * (its small factors, then Miller-Rabin rounds, each a modular exponentiation as long as the key) and remembers the
 * last moduli it checked, so the {@link OpenPgpSignatures#verify verification} that follows finds the key checked.
 */
public final class SigningKeyAhead {

    private static final Logger LOG = LoggerFactory.getLogger(SigningKeyAhead.class);

    private SigningKeyAhead() {}

    /**
     * Runs on the first of {@code armoredKeys} the checks {@link OpenPgpSignatures#verify} runs on it before any other
     * key's (each of its version 4 key rings' self- and binding signatures, {@link SigningKeyRules#whyUnreadable}),
     * deciding nothing. Only the modulus checks are remembered, so the verification runs the signature checks of that
     * key again: reading ahead costs at most one more such pass over the first key per SHA256SUMS document, which an
     * origin could as well have the verification make; the keys after the first it never reads (the verification
     * checks them only when the first holds no signer). What is wrong with a key is left for the verification to
     * report; the first key of a platform's download document is read, where the verification reads each platform's
     * own (listing the same keys, as registries do, it is the same key).
     */
    public static void read(List<String> armoredKeys) {
        armoredKeys.stream().limit(1).forEach(SigningKeyAhead::readRings);
    }

    private static void readRings(String armored) {
        SignatureChecks checks = new SignatureChecks();
        try {
            for (PGPPublicKeyRing ring : ArmoredKeys.read(armored)) {
                if (ring.getPublicKey().getVersion() >= 4) {
                    SigningKeyRules.whyUnreadable(ring, checks);
                }
            }
        } catch (RuntimeException | StackOverflowError e) {
            // The armor cannot be read, or its rings are larger or ask for more checks than a verification reads
            // (each a VerificationException); whyUnreadable reports a ring's faults itself. Whatever went wrong here
            // is left to the verification, which meets the same key again and fails on it as it would have.
            LOG.debug("reading the origin's first signing key ahead of its signature failed: {}", e.toString());
        }
    }
}
