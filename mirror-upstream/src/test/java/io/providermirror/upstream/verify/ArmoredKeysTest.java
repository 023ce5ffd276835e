package io.providermirror.upstream.verify;

import static io.providermirror.upstream.verify.PgpBytes.armored;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.testkit.TestPgpKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bouncycastle.bcpg.BCPGInputStream;
import org.bouncycastle.bcpg.BCPGKey;
import org.bouncycastle.bcpg.BCPGOutputStream;
import org.bouncycastle.bcpg.DSAPublicBCPGKey;
import org.bouncycastle.bcpg.HashAlgorithmTags;
import org.bouncycastle.bcpg.MPInteger;
import org.bouncycastle.bcpg.PacketFormat;
import org.bouncycastle.bcpg.PublicKeyAlgorithmTags;
import org.bouncycastle.bcpg.PublicKeyPacket;
import org.bouncycastle.bcpg.RSAPublicBCPGKey;
import org.bouncycastle.bcpg.SignaturePacket;
import org.bouncycastle.bcpg.SignatureSubpacket;
import org.bouncycastle.bcpg.sig.IssuerKeyID;
import org.bouncycastle.bcpg.sig.SignatureCreationTime;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.openpgp.PGPSignature;
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
    private static final TestPgpKey other = TestPgpKey.generate("Other <other@example.test>");

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

    /**
     * Rings are judged in the listed order until one holds the signer, as the CLI reads keys one after another: seven
     * rings of another key before the signer's are judged, eight are refused; listed after it, they are never judged.
     */
    @Test
    void atMostEightKeyRingsAreJudgedBeforeOneHoldsTheSigner() {
        String four = block(
                other.armoredPublicKey(), other.armoredPublicKey(), other.armoredPublicKey(), other.armoredPublicKey());
        String three = block(other.armoredPublicKey(), other.armoredPublicKey(), other.armoredPublicKey());
        assertThat(VerifyNow.signature(
                        SUMS, key.signDetached(SUMS), List.of(block(four, three, key.armoredPublicKey()))))
                .isEqualTo(key.signingKeyId());
        assertThat(VerifyNow.signature(SUMS, key.signDetached(SUMS), List.of(key.armoredPublicKey(), four, four, four)))
                .as("the keys after the signer's are not judged")
                .isEqualTo(key.signingKeyId());

        assertThatThrownBy(() -> VerifyNow.signature(
                        SUMS, key.signDetached(SUMS), List.of(block(four, four, key.armoredPublicKey()))))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("more than " + SignatureChecks.MAX_RINGS + " key rings to be checked");
    }

    /**
     * The largest RSA modulus read is one a key may have; a bit more is refused before the key is used: with the
     * check after the key's self-signature, the modulus (random, so Bouncy Castle refuses it on use) would be refused
     * as unreadable instead.
     */
    @Test
    void anRsaModulusLongerThanTheMirrorReadsIsRefusedBeforeItIsUsed() {
        int longer = SignatureChecks.MAX_RSA_MODULUS_BITS + 1;
        assertThat(refusal(ring(rsa(longer), PublicKeyAlgorithmTags.RSA_GENERAL, true)))
                .hasMessageContaining("the origin's signing key ")
                .hasMessageContaining("an RSA modulus of " + longer + " bits");
        assertThat(refusal(ring(rsa(SignatureChecks.MAX_RSA_MODULUS_BITS), PublicKeyAlgorithmTags.RSA_GENERAL, true)))
                .as("at the bound: read, then found unusable on use")
                .hasMessageNotContaining("an RSA modulus of");
    }

    /** Four keys of more than 4096 bits are read in a verification, a fifth is refused before it is used. */
    @Test
    void atMostFourLargeKeysAreReadInAVerification() {
        String large = ring(rsa(SignatureChecks.LARGE_KEY_BITS + 1), PublicKeyAlgorithmTags.RSA_GENERAL, false);
        assertThat(VerifyNow.signature(
                        SUMS,
                        key.signDetached(SUMS),
                        List.of(block(large, large, large, large, key.armoredPublicKey()))))
                .isEqualTo(key.signingKeyId());

        String largest = ring(rsa(SignatureChecks.LARGE_KEY_BITS), PublicKeyAlgorithmTags.RSA_GENERAL, false);
        assertThat(VerifyNow.signature(
                        SUMS,
                        key.signDetached(SUMS),
                        List.of(block(largest, largest, largest, largest, largest, key.armoredPublicKey()))))
                .as("keys of 4096 bits are not large")
                .isEqualTo(key.signingKeyId());

        assertThatThrownBy(() -> VerifyNow.signature(
                        SUMS,
                        key.signDetached(SUMS),
                        List.of(block(large, large, large, large, large, key.armoredPublicKey()))))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("one more than the " + SignatureChecks.MAX_LARGE_KEYS + " keys of more than "
                        + SignatureChecks.LARGE_KEY_BITS + " bits");
    }

    /** A DSA key whose prime or subgroup order is longer than FIPS 186-4's longest is refused before it is used. */
    @Test
    void dsaParametersLargerThanTheMirrorReadsAreRefusedBeforeTheyAreUsed() {
        BigInteger two = BigInteger.TWO;
        BigInteger three = BigInteger.valueOf(3);
        assertThat(refusal(ring(
                        new DSAPublicBCPGKey(odd(SignatureChecks.MAX_DSA_P_BITS + 1), odd(256), two, three),
                        PublicKeyAlgorithmTags.DSA,
                        true)))
                .hasMessageContaining("DSA parameters of " + (SignatureChecks.MAX_DSA_P_BITS + 1) + " and 256 bits");
        assertThat(refusal(ring(
                        new DSAPublicBCPGKey(odd(3072), odd(SignatureChecks.MAX_DSA_Q_BITS + 1), two, three),
                        PublicKeyAlgorithmTags.DSA,
                        true)))
                .hasMessageContaining("DSA parameters of 3072 and " + (SignatureChecks.MAX_DSA_Q_BITS + 1) + " bits");
        assertThat(refusal(
                        ring(new DSAPublicBCPGKey(odd(3072), odd(256), two, three), PublicKeyAlgorithmTags.DSA, true)))
                .as("FIPS 186-4's largest: read, then found unusable on use")
                .hasMessageNotContaining("DSA parameters of");
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

    /**
     * A key ring of one primary key with {@code material}, armored; with {@code selfSigned}, a user ID certified by a
     * signature that does not verify (the key has no private half), which judging the ring checks.
     */
    private static String ring(BCPGKey material, int algorithm, boolean selfSigned) {
        PublicKeyPacket packet =
                new PublicKeyPacket(PublicKeyPacket.VERSION_4, algorithm, Date.from(Instant.now()), material);
        try {
            PGPPublicKey primary = new PGPPublicKey(packet, new BcKeyFingerprintCalculator());
            if (selfSigned) {
                SignaturePacket certification = new SignaturePacket(
                        4,
                        PGPSignature.POSITIVE_CERTIFICATION,
                        primary.getKeyID(),
                        algorithm,
                        HashAlgorithmTags.SHA256,
                        new SignatureSubpacket[] {new SignatureCreationTime(true, Date.from(Instant.now()))},
                        new SignatureSubpacket[] {new IssuerKeyID(false, primary.getKeyID())},
                        new byte[2],
                        algorithm == PublicKeyAlgorithmTags.DSA
                                ? new MPInteger[] {new MPInteger(BigInteger.ONE), new MPInteger(BigInteger.ONE)}
                                : new MPInteger[] {new MPInteger(BigInteger.ONE)});
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                try (BCPGOutputStream out = new BCPGOutputStream(bytes, PacketFormat.CURRENT)) {
                    certification.encode(out);
                }
                PGPSignature signature =
                        new PGPSignature(BCPGInputStream.wrap(new ByteArrayInputStream(bytes.toByteArray())));
                primary = PGPPublicKey.addCertification(primary, "Large <large@example.test>", signature);
            }
            return armored(new PGPPublicKeyRing(List.of(primary)).getEncoded());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** An RSA public key of {@code bits} bits, its modulus random. */
    private static BCPGKey rsa(int bits) {
        return new RSAPublicBCPGKey(odd(bits), BigInteger.valueOf(65537));
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
}
