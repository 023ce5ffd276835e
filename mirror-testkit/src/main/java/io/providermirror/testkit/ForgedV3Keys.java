package io.providermirror.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.bcpg.BCPGOutputStream;
import org.bouncycastle.bcpg.HashAlgorithmTags;
import org.bouncycastle.bcpg.PublicKeyAlgorithmTags;
import org.bouncycastle.bcpg.PublicKeyPacket;
import org.bouncycastle.bcpg.RSAPublicBCPGKey;
import org.bouncycastle.bcpg.RSASecretBCPGKey;
import org.bouncycastle.bcpg.UserIDPacket;
import org.bouncycastle.openpgp.PGPException;
import org.bouncycastle.openpgp.PGPKeyPair;
import org.bouncycastle.openpgp.PGPPrivateKey;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.openpgp.PGPSignature;
import org.bouncycastle.openpgp.PGPV3SignatureGenerator;
import org.bouncycastle.openpgp.operator.bc.BcKeyFingerprintCalculator;
import org.bouncycastle.openpgp.operator.bc.BcPGPContentSignerBuilder;

/** Version 3 OpenPGP keys forged to carry a chosen key ID, for {@link TestPgpKey#forgeV3(String)}. */
final class ForgedV3Keys {

    private ForgedV3Keys() {}

    /**
     * An OpenPGP version 3 RSA key forged to carry the key ID {@code keyId} (16 hex digits, odd): a v3 key's ID is
     * the low 64 bits of its modulus, which whoever makes the key chooses. This is how anyone can make a key with
     * somebody else's (v4) key ID; it has a user ID and no self-signature.
     */
    static TestPgpKey forge(String keyId) {
        BigInteger target = new BigInteger(keyId, 16);
        BigInteger modulo = BigInteger.ONE.shiftLeft(64);
        BigInteger e = BigInteger.valueOf(0x10001);
        SecureRandom random = new SecureRandom();
        while (true) {
            BigInteger p = BigInteger.probablePrime(1024, random);
            if (!p.subtract(BigInteger.ONE).gcd(e).equals(BigInteger.ONE)) {
                continue;
            }
            // q = target / p (mod 2^64), so that p * q ends in the target's 64 bits.
            BigInteger q = new BigInteger(1024, random)
                    .setBit(1023)
                    .shiftRight(64)
                    .shiftLeft(64)
                    .add(target.multiply(p.modInverse(modulo)).mod(modulo));
            for (int tries = 0; tries < 20_000; tries++, q = q.add(modulo)) {
                if (q.isProbablePrime(40) && q.subtract(BigInteger.ONE).gcd(e).equals(BigInteger.ONE)) {
                    return v3Key(p, q, e);
                }
            }
        }
    }

    private static TestPgpKey v3Key(BigInteger p, BigInteger q, BigInteger e) {
        try {
            BigInteger d = e.modInverse(p.subtract(BigInteger.ONE).multiply(q.subtract(BigInteger.ONE)));
            PublicKeyPacket packet = new PublicKeyPacket(
                    3,
                    PublicKeyAlgorithmTags.RSA_GENERAL,
                    Date.from(Instant.now()),
                    new RSAPublicBCPGKey(p.multiply(q), e));
            PGPPublicKey publicKey = new PGPPublicKey(packet, new BcKeyFingerprintCalculator());
            ByteArrayOutputStream encoded = new ByteArrayOutputStream();
            try (BCPGOutputStream out = new BCPGOutputStream(encoded)) {
                packet.encode(out);
                new UserIDPacket("Forger <v3@example.test>").encode(out);
            }
            PGPPublicKeyRing ring = new PGPPublicKeyRing(encoded.toByteArray(), new BcKeyFingerprintCalculator());
            PGPKeyPair pair = new PGPKeyPair(
                    publicKey, new PGPPrivateKey(publicKey.getKeyID(), packet, new RSASecretBCPGKey(d, p, q)));
            return new TestPgpKey(pair, null, ring);
        } catch (IOException | PGPException failure) {
            throw new IllegalStateException("cannot make the v3 test key", failure);
        }
    }

    /** A detached binary signature of OpenPGP version 3 by {@code signer} over {@code document}. */
    static byte[] signV3(PGPKeyPair signer, byte[] document) {
        try {
            PGPV3SignatureGenerator generator = new PGPV3SignatureGenerator(
                    new BcPGPContentSignerBuilder(signer.getPublicKey().getAlgorithm(), HashAlgorithmTags.SHA256));
            generator.init(PGPSignature.BINARY_DOCUMENT, signer.getPrivateKey());
            generator.update(document);
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (BCPGOutputStream out = new BCPGOutputStream(bytes)) {
                generator.generate().encode(out);
            }
            return bytes.toByteArray();
        } catch (PGPException | IOException e) {
            throw new IllegalStateException("cannot sign with the test key", e);
        }
    }
}
