package io.providermirror.server.tls;

import io.providermirror.server.config.TlsConfig;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javax.security.auth.x500.X500Principal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The certificate and key an operator configured in {@code server.tls}, checked before the listener opens: a
 * key that is not the certificate's own stops start-up (every handshake would fail otherwise); a certificate
 * that has expired, or does not name this machine, is worth a warning.
 */
public final class ConfiguredIdentity {

    private static final Logger LOG = LoggerFactory.getLogger(ConfiguredIdentity.class);

    private ConfiguredIdentity() {}

    /** Reads one of the two files, a failure naming the configuration key (a swapped pair names the first). */
    private static <T> T readNamingKey(String key, PemRead<T> read) throws IOException {
        try {
            return read.read();
        } catch (IOException e) {
            throw new IOException(
                    key + ": " + e.getMessage()
                            + (key.endsWith("certificate")
                                    ? " (are server.tls.certificate and server.tls.privateKey swapped?)"
                                    : ""),
                    e);
        }
    }

    @FunctionalInterface
    private interface PemRead<T> {
        T read() throws IOException;
    }

    /** Reads and checks {@code tls}; {@code hostName} is the name clients most likely use, for the warning. */
    public static ServerIdentity read(TlsConfig tls, String hostName, Clock clock) throws IOException {
        List<X509Certificate> chain =
                readNamingKey("server.tls.certificate", () -> PemFiles.readCertificates(tls.certificate()));
        PrivateKey key = readNamingKey("server.tls.privateKey", () -> PemFiles.readPrivateKey(tls.privateKey()));
        if (chain.isEmpty()) {
            throw new IOException("server.tls.certificate: " + tls.certificate() + " holds no certificate");
        }
        X509Certificate leaf = chain.get(0);
        if (!matches(key, leaf.getPublicKey())) {
            throw new IOException("server.tls.privateKey does not match the certificate in server.tls.certificate ("
                    + tls.privateKey() + " is not the key of " + subject(leaf) + " in " + tls.certificate() + ")");
        }
        if (leaf.getNotAfter().toInstant().isBefore(clock.instant())) {
            LOG.warn(
                    "server.tls.certificate {} expired on {}: clients will refuse it",
                    tls.certificate(),
                    leaf.getNotAfter().toInstant());
        }
        List<String> names = ServerIdentity.names(leaf);
        if (!ServerIdentity.covers(names, hostName)) {
            LOG.warn(
                    "server.tls.certificate {} is for {}, not for this machine's name {}: clients must use one of "
                            + "those names in the mirror URL",
                    tls.certificate(),
                    names,
                    hostName);
        }
        return new ServerIdentity(chain, key, Optional.empty());
    }

    /** True when {@code key} signs what {@code publicKey} verifies: the pair belongs together. */
    static boolean matches(PrivateKey key, PublicKey publicKey) {
        if (!key.getAlgorithm().equals(publicKey.getAlgorithm())
                && !(key.getAlgorithm().startsWith("EC")
                        && publicKey.getAlgorithm().startsWith("EC"))) {
            return false;
        }
        String algorithm = switch (key.getAlgorithm().toUpperCase(Locale.ROOT)) {
            case "RSA" -> "SHA256withRSA";
            case "RSASSA-PSS" -> "RSASSA-PSS";
            case "EC", "ECDSA" -> "SHA256withECDSA";
            case "ED25519", "ED448", "EDDSA" -> key.getAlgorithm();
            case "DSA" -> "SHA256withDSA";
            default -> null;
        };
        if (algorithm == null) {
            return true; // an algorithm this check does not know: the handshake will tell
        }
        try {
            byte[] challenge = new byte[32];
            new SecureRandom().nextBytes(challenge);
            Signature signer = signature(algorithm);
            signer.initSign(key);
            signer.update(challenge);
            byte[] signature = signer.sign();
            Signature verifier = signature(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(challenge);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /** A signature of {@code algorithm}; RSASSA-PSS needs its parameters spelled out. */
    private static Signature signature(String algorithm) throws GeneralSecurityException {
        Signature signature = Signature.getInstance(algorithm);
        if (algorithm.equals("RSASSA-PSS")) {
            signature.setParameter(new java.security.spec.PSSParameterSpec(
                    "SHA-256", "MGF1", java.security.spec.MGF1ParameterSpec.SHA256, 32, 1));
        }
        return signature;
    }

    private static String subject(X509Certificate certificate) {
        return certificate.getSubjectX500Principal().getName(X500Principal.RFC2253);
    }
}
