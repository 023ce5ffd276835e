package io.providermirror.upstream.verify;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.bcpg.RSAPublicBCPGKey;
import org.bouncycastle.crypto.params.RSAKeyParameters;
import org.bouncycastle.openpgp.PGPException;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.openpgp.PGPPublicKeyRingCollection;
import org.bouncycastle.openpgp.PGPUtil;
import org.bouncycastle.openpgp.operator.bc.BcKeyFingerprintCalculator;
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
        try (InputStream in =
                PGPUtil.getDecoderStream(new ByteArrayInputStream(armored.getBytes(StandardCharsets.US_ASCII)))) {
            for (PGPPublicKeyRing ring : new PGPPublicKeyRingCollection(in, new BcKeyFingerprintCalculator())) {
                for (PGPPublicKey key : ring) {
                    moduli.add(((RSAPublicBCPGKey) key.getPublicKeyPacket().getKey()).getModulus());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (PGPException e) {
            throw new IllegalArgumentException(e);
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
