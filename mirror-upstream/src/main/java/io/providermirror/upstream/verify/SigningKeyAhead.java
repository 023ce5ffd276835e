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
     * Reads the first of {@code armoredKeys} as {@link OpenPgpSignatures#verify} always does first (each of its key
     * rings' self- and binding signatures checked), deciding nothing. Never more work than the verification does with
     * the same keys (it reads the keys after the first only when the first holds no signer); what is wrong with a key
     * is left for the verification to report.
     */
    public static void read(List<String> armoredKeys) {
        armoredKeys.stream().limit(1).forEach(SigningKeyAhead::readRings);
    }

    private static void readRings(String armored) {
        try {
            for (PGPPublicKeyRing ring : OpenPgpSignatures.readKeys(armored)) {
                if (ring.getPublicKey().getVersion() >= 4) {
                    SigningKeyRules.whyUnreadable(ring);
                }
            }
        } catch (RuntimeException e) {
            // VerificationException (unreadable armor) or Bouncy Castle's complaint about a malformed packet.
            LOG.debug("reading the origin's first signing key ahead of its signature failed: {}", e.toString());
        }
    }
}
