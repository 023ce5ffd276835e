package io.providermirror.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.crypto.generators.RSAKeyPairGenerator;
import org.bouncycastle.crypto.params.RSAKeyGenerationParameters;
import org.bouncycastle.crypto.params.RSAKeyParameters;
import org.bouncycastle.crypto.params.RSAPrivateCrtKeyParameters;

/**
 * The 2048-bit RSA key pairs the tests' OpenPGP keys are made of ({@link TestPgpKey}), made once and shipped in
 * {@code test-rsa-keys.txt} rather than generated in each test JVM: making one costs 0.1–0.5 s, and every mutation
 * testing minion and every test JVM made dozens. They are handed out in turn, so the last {@link #COUNT} handed out in
 * a JVM are all different; no test uses more than a few at once. (The turn is the one mutable static of the test kit,
 * on purpose: it is what keeps the keys a test makes apart.) Each is a test key only, published with the code.
 */
final class TestRsaKeys {

    /** How many key pairs the file holds. */
    static final int COUNT = 64;

    private static final AtomicInteger TURN = new AtomicInteger();

    private TestRsaKeys() {}

    /** The next key pair in turn. */
    static AsymmetricCipherKeyPair next() {
        List<AsymmetricCipherKeyPair> pairs = Shipped.PAIRS;
        return pairs.get(Math.floorMod(TURN.getAndIncrement(), pairs.size()));
    }

    /** A key pair made now whose public exponent is the prime 2^32 + 1 (33 bits), longer than the CLI reads. */
    static AsymmetricCipherKeyPair withLargeExponent() {
        RSAKeyPairGenerator generator = new RSAKeyPairGenerator();
        generator.init(new RSAKeyGenerationParameters(
                BigInteger.ONE.shiftLeft(32).add(BigInteger.ONE), new SecureRandom(), 2048, 12));
        return generator.generateKeyPair();
    }

    /** The key pairs of the file, read on first use. */
    static final class Shipped {

        static final List<AsymmetricCipherKeyPair> PAIRS = read();

        private Shipped() {}

        private static List<AsymmetricCipherKeyPair> read() {
            List<AsymmetricCipherKeyPair> pairs = new ArrayList<>(COUNT);
            try (InputStream in = TestRsaKeys.class.getResourceAsStream("test-rsa-keys.txt");
                    BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    if (!line.startsWith("#")) {
                        pairs.add(pair(line.split(" ", -1)));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the tests' RSA keys (test-rsa-keys.txt)", e);
            }
            if (pairs.size() != COUNT) {
                throw new IllegalStateException("test-rsa-keys.txt holds " + pairs.size() + " key pairs, not " + COUNT);
            }
            return List.copyOf(pairs);
        }

        /** Modulus, public and private exponent, p, q, dP, dQ and qInv, in hex. */
        private static AsymmetricCipherKeyPair pair(String[] fields) {
            BigInteger[] n = new BigInteger[8];
            for (int i = 0; i < n.length; i++) {
                n[i] = new BigInteger(fields[i], 16);
            }
            return new AsymmetricCipherKeyPair(
                    new RSAKeyParameters(false, n[0], n[1]),
                    new RSAPrivateCrtKeyParameters(n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7]));
        }
    }
}
