package io.providermirror.server.tls;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;

/** Reads and writes PEM certificates and private keys (PKCS#8, PKCS#1 RSA and SEC1 EC keys are read). */
public final class PemFiles {

    private PemFiles() {}

    /** Every certificate in a PEM file, in order. */
    public static List<X509Certificate> readCertificates(Path file) throws IOException {
        List<X509Certificate> certificates = new ArrayList<>();
        for (Certificate certificate : io.providermirror.upstream.TrustedCertificates.readPem(file)) {
            certificates.add((X509Certificate) certificate);
        }
        if (certificates.isEmpty()) {
            throw new IOException(file + " holds no PEM certificate");
        }
        return certificates;
    }

    /** The first private key in a PEM file. */
    public static PrivateKey readPrivateKey(Path file) throws IOException {
        PrivateKey pkcs8 = readPkcs8EcKey(file);
        if (pkcs8 != null) {
            return pkcs8;
        }
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
                PEMParser parser = new PEMParser(reader)) {
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            Object object;
            while ((object = parser.readObject()) != null) {
                if (object instanceof PrivateKeyInfo info) {
                    return converter.getPrivateKey(info);
                }
                if (object instanceof PEMKeyPair pair) {
                    // PKCS#1 RSA and SEC1 EC keys; SEC1 keys may lack their public half, so only the private
                    // part is converted.
                    return converter.getPrivateKey(pair.getPrivateKeyInfo());
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new IOException(file + " is not a readable PEM private key: " + e.getMessage(), e);
        }
        throw new IOException(file + " holds no unencrypted PEM private key (expected: PKCS#8 or PKCS#1)");
    }

    /**
     * The key of a file that is one PKCS#8 EC key ({@code BEGIN PRIVATE KEY}), as the mirror writes its own,
     * read by the JDK alone: Bouncy Castle's PEM parser costs a tenth of a second of start-up. Null for
     * anything else, which the parser then reads (or explains).
     */
    private static PrivateKey readPkcs8EcKey(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.US_ASCII).strip();
            String begin = "-----BEGIN PRIVATE KEY-----";
            String end = "-----END PRIVATE KEY-----";
            if (!text.startsWith(begin) || !text.endsWith(end) || text.length() < begin.length() + end.length()) {
                return null;
            }
            String body = text.substring(begin.length(), text.length() - end.length());
            if (body.indexOf('-') >= 0) {
                return null; // more than one PEM block
            }
            byte[] der = java.util.Base64.getMimeDecoder().decode(body);
            return java.security.KeyFactory.getInstance("EC")
                    .generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(der));
        } catch (IOException | IllegalArgumentException | java.security.GeneralSecurityException e) {
            return null;
        }
    }

    /** PEM text of a private key in PKCS#8 form ({@code BEGIN PRIVATE KEY}), which every TLS stack reads. */
    public static String toPkcs8Pem(PrivateKey key) throws IOException {
        StringWriter text = new StringWriter();
        try (org.bouncycastle.util.io.pem.PemWriter writer = new org.bouncycastle.util.io.pem.PemWriter(text)) {
            writer.writeObject(new org.bouncycastle.util.io.pem.PemObject("PRIVATE KEY", key.getEncoded()));
        }
        return text.toString();
    }

    /** PEM text of objects (certificates, keys). */
    public static String toPem(Object... objects) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            for (Object object : objects) {
                writer.writeObject(object);
            }
        }
        return text.toString();
    }
}
