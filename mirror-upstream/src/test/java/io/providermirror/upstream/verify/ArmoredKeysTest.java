package io.providermirror.upstream.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.testkit.TestPgpKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bouncycastle.bcpg.ArmoredOutputStream;
import org.bouncycastle.bcpg.BCPGKey;
import org.bouncycastle.bcpg.DSAPublicBCPGKey;
import org.bouncycastle.bcpg.PublicKeyAlgorithmTags;
import org.bouncycastle.bcpg.PublicKeyPacket;
import org.bouncycastle.bcpg.RSAPublicBCPGKey;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.openpgp.PGPUtil;
import org.bouncycastle.openpgp.operator.bc.BcKeyFingerprintCalculator;
import org.junit.jupiter.api.Test;

/**
 * An origin's signing keys, read as the CLI reads them and within the mirror's bounds: every key ring of a block in
 * its order (a key listed twice is two key rings, as the CLI's library reads it), at most {@link
 * SignatureChecks#MAX_RINGS} of them, and no key whose first use would cost seconds of CPU.
 */
final class ArmoredKeysTest {

    private static final byte[] SUMS =
            ("c".repeat(64) + "  terraform-provider-x_1.0.0_linux_amd64.zip\n").getBytes(StandardCharsets.UTF_8);

    private static final TestPgpKey key = TestPgpKey.generate("Armored <armored@example.test>");

    /**
     * The key with its revocation, then the same key without it, in one block: Bouncy Castle's key ring collection
     * kept only the last ring of each key ID, so the revocation vanished and the mirror accepted what the CLI, which
     * meets the revoked ring first, refuses.
     */
    @Test
    void aKeyListedAgainWithoutItsRevocationIsStillRevoked() {
        String both = block(key.armoredPublicKeyRevokingSigner(), key.armoredPublicKey());

        assertThat(ArmoredKeys.read(both)).hasSize(2);
        assertThatThrownBy(() -> VerifyNow.signature(SUMS, key.signDetached(SUMS), List.of(both)))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("revoked");
    }

    @Test
    void atMostEightKeyRingsAreReadOverAllTheListedKeys() {
        String four =
                block(key.armoredPublicKey(), key.armoredPublicKey(), key.armoredPublicKey(), key.armoredPublicKey());
        assertThat(VerifyNow.signature(SUMS, key.signDetached(SUMS), List.of(four, four)))
                .isEqualTo(key.signingKeyId());

        assertThatThrownBy(() ->
                        VerifyNow.signature(SUMS, key.signDetached(SUMS), List.of(four, four, key.armoredPublicKey())))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("more than " + SignatureChecks.MAX_RINGS + " key rings");
    }

    /** The largest RSA modulus read is one a key may have; a bit more is refused before it is used. */
    @Test
    void anRsaModulusLongerThanTheMirrorReadsIsRefusedBeforeItIsUsed() {
        BigInteger largest = odd(SignatureChecks.MAX_RSA_MODULUS_BITS);
        assertThat(refusal(ring(
                        new RSAPublicBCPGKey(largest, BigInteger.valueOf(65537)), PublicKeyAlgorithmTags.RSA_GENERAL)))
                .as("at the bound: read, then found to carry no self-signature")
                .hasMessageContaining("no user ID with a self-signature");

        BigInteger longer = odd(SignatureChecks.MAX_RSA_MODULUS_BITS + 1);
        assertThat(refusal(ring(
                        new RSAPublicBCPGKey(longer, BigInteger.valueOf(65537)), PublicKeyAlgorithmTags.RSA_GENERAL)))
                .hasMessageContaining("an RSA modulus of " + (SignatureChecks.MAX_RSA_MODULUS_BITS + 1) + " bits");
    }

    /** A DSA key whose prime or subgroup order is longer than FIPS 186-4's longest is refused before it is used. */
    @Test
    void dsaParametersLargerThanTheMirrorReadsAreRefusedBeforeTheyAreUsed() {
        BigInteger two = BigInteger.TWO;
        BigInteger three = BigInteger.valueOf(3);
        assertThat(refusal(ring(
                        new DSAPublicBCPGKey(odd(SignatureChecks.MAX_DSA_P_BITS + 1), odd(256), two, three),
                        PublicKeyAlgorithmTags.DSA)))
                .hasMessageContaining("DSA parameters of " + (SignatureChecks.MAX_DSA_P_BITS + 1) + " and 256 bits");
        assertThat(refusal(ring(
                        new DSAPublicBCPGKey(odd(3072), odd(SignatureChecks.MAX_DSA_Q_BITS + 1), two, three),
                        PublicKeyAlgorithmTags.DSA)))
                .hasMessageContaining("DSA parameters of 3072 and " + (SignatureChecks.MAX_DSA_Q_BITS + 1) + " bits");
        assertThat(refusal(ring(new DSAPublicBCPGKey(odd(3072), odd(256), two, three), PublicKeyAlgorithmTags.DSA)))
                .as("FIPS 186-4's largest: read")
                .hasMessageContaining("no user ID with a self-signature");
    }

    /** The verdict on a signature by {@link #key} when {@code first} is listed before it. */
    private static Throwable refusal(String first) {
        try {
            VerifyNow.signature(SUMS, key.signDetached(SUMS), List.of(first, key.armoredPublicKey()));
            return null;
        } catch (VerificationException e) {
            return e;
        }
    }

    /** A key ring of one primary key with {@code material} and nothing else, armored. */
    private static String ring(BCPGKey material, int algorithm) {
        PublicKeyPacket packet =
                new PublicKeyPacket(PublicKeyPacket.VERSION_4, algorithm, Date.from(Instant.now()), material);
        try {
            PGPPublicKeyRing ring =
                    new PGPPublicKeyRing(List.of(new PGPPublicKey(packet, new BcKeyFingerprintCalculator())));
            return armored(ring.getEncoded());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** An odd number of exactly {@code bits} bits. */
    private static BigInteger odd(int bits) {
        return new BigInteger(bits - 1, new SecureRandom()).setBit(bits - 1).setBit(0);
    }

    /** The key rings of several armored blocks in one block. */
    private static String block(String... armoredBlocks) {
        ByteArrayOutputStream rings = new ByteArrayOutputStream();
        for (String armored : armoredBlocks) {
            try (InputStream in =
                    PGPUtil.getDecoderStream(new ByteArrayInputStream(armored.getBytes(StandardCharsets.US_ASCII)))) {
                rings.writeBytes(in.readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return armored(rings.toByteArray());
    }

    private static String armored(byte[] binary) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (OutputStream armor = new ArmoredOutputStream(out)) {
            armor.write(binary);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.US_ASCII);
    }
}
