package io.providermirror.upstream.verify;

import java.lang.reflect.Field;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.bcpg.RSAPublicBCPGKey;
import org.bouncycastle.crypto.params.RSAKeyParameters;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.util.BigIntegers;

/**
 * The RSA moduli of test keys, and whether Bouncy Castle remembers one as checked (its small factors and Miller-Rabin
 * rounds, done the first time a key is used in the JVM): what {@link SigningKeyAhead#read} does ahead of a
 * signature is seen there, not in timings.
 */
public final class RsaModuli {

    private RsaModuli() {}

    /** The modulus of each key (primary key first, then subkeys) of each key ring in {@code armored}. */
    public static List<BigInteger> of(String armored) {
        List<BigInteger> moduli = new ArrayList<>();
        for (PGPPublicKeyRing ring : ArmoredKeys.read(armored)) {
            for (PGPPublicKey key : ring) {
                moduli.add(((RSAPublicBCPGKey) key.getPublicKeyPacket().getKey()).getModulus());
            }
        }
        return moduli;
    }

    /** Whether Bouncy Castle remembers {@code modulus} as one it checked. */
    public static boolean checked(BigInteger modulus) {
        return remembered().contains(modulus);
    }

    /**
     * Makes Bouncy Castle forget the moduli it checked: it remembers the keys it made (a test's) as checked, where an
     * origin's keys were made elsewhere. Costs the next use of each key its check again, nothing else.
     */
    public static void forgetChecked() {
        remembered().clear();
    }

    private static BigIntegers.Cache remembered() {
        try {
            Field validated = RSAKeyParameters.class.getDeclaredField("validated");
            validated.setAccessible(true);
            return (BigIntegers.Cache) validated.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // RuntimeException: InaccessibleObjectException, were Bouncy Castle on the module path.
            throw new LinkageError("Bouncy Castle no longer remembers the RSA moduli it checked the same way", e);
        }
    }
}
