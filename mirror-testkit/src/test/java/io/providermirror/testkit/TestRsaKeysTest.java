package io.providermirror.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.HashSet;
import java.util.Set;
import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.crypto.params.RSAKeyParameters;
import org.bouncycastle.crypto.params.RSAPrivateCrtKeyParameters;
import org.junit.jupiter.api.Test;

/** The shipped key pairs are real 2048-bit RSA keys, each different, and handed out in turn. */
final class TestRsaKeysTest {

    @Test
    void eachShippedPairIsAConsistentRsaKeyOf2048Bits() {
        Set<BigInteger> moduli = new HashSet<>();
        for (AsymmetricCipherKeyPair pair : TestRsaKeys.Shipped.PAIRS) {
            RSAKeyParameters pub = (RSAKeyParameters) pair.getPublic();
            RSAPrivateCrtKeyParameters key = (RSAPrivateCrtKeyParameters) pair.getPrivate();
            BigInteger n = pub.getModulus();
            assertThat(n.bitLength()).isEqualTo(2048);
            assertThat(pub.getExponent()).isEqualTo(BigInteger.valueOf(0x10001));
            assertThat(key.getP().multiply(key.getQ())).isEqualTo(n);
            BigInteger d = key.getExponent();
            assertThat(key.getDP()).isEqualTo(d.mod(key.getP().subtract(BigInteger.ONE)));
            assertThat(key.getDQ()).isEqualTo(d.mod(key.getQ().subtract(BigInteger.ONE)));
            assertThat(key.getQInv().multiply(key.getQ()).mod(key.getP())).isEqualTo(BigInteger.ONE);
            BigInteger message = BigInteger.valueOf(0x1234_5678_9abcL);
            assertThat(message.modPow(pub.getExponent(), n).modPow(d, n)).isEqualTo(message);
            moduli.add(n);
        }
        assertThat(moduli).hasSize(TestRsaKeys.COUNT);
    }

    @Test
    void theLastCountHandedOutAreAllDifferent() {
        Set<AsymmetricCipherKeyPair> handed = new HashSet<>();
        for (int i = 0; i < TestRsaKeys.COUNT; i++) {
            handed.add(TestRsaKeys.next());
        }
        assertThat(handed).hasSize(TestRsaKeys.COUNT);
    }
}
