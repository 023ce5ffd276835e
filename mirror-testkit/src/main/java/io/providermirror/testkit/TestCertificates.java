package io.providermirror.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A test CA and a server certificate it signed for {@code localhost} and {@code 127.0.0.1}, written as a CA
 * PEM file (for whoever must trust the server) and a PKCS#12 key store (for the server).
 */
public record TestCertificates(
        Path caPem, Path keyStore, String password, Path serverCertificatePem, Path serverKeyPem) {

    /** Makes the files in {@code directory}. */
    public static TestCertificates create(Path directory, String name) {
        try {
            Files.createDirectories(directory);
            SecureRandom random = new SecureRandom();
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048, random);
            KeyPair caKeys = generator.generateKeyPair();
            KeyPair serverKeys = generator.generateKeyPair();
            Instant now = Instant.now();
            X500Name caName = new X500Name("CN=" + name + " test CA");
            X509Certificate ca = new JcaX509CertificateConverter()
                    .getCertificate(new JcaX509v3CertificateBuilder(
                                    caName,
                                    BigInteger.valueOf(random.nextInt(1 << 30) + 1L),
                                    Date.from(now.minus(Duration.ofHours(1))),
                                    Date.from(now.plus(Duration.ofDays(30))),
                                    caName,
                                    caKeys.getPublic())
                            .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                            .build(new JcaContentSignerBuilder("SHA256withRSA").build(caKeys.getPrivate())));
            X509Certificate server = new JcaX509CertificateConverter()
                    .getCertificate(new JcaX509v3CertificateBuilder(
                                    caName,
                                    BigInteger.valueOf(random.nextInt(1 << 30) + 1L),
                                    Date.from(now.minus(Duration.ofHours(1))),
                                    Date.from(now.plus(Duration.ofDays(30))),
                                    new X500Name("CN=" + name),
                                    serverKeys.getPublic())
                            .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                            .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                                new GeneralName(GeneralName.dNSName, "localhost"),
                                new GeneralName(GeneralName.iPAddress, "127.0.0.1")
                            }))
                            .build(new JcaContentSignerBuilder("SHA256withRSA").build(caKeys.getPrivate())));
            Path caPem = directory.resolve(name + "-ca.pem");
            Files.writeString(caPem, pem(ca), StandardCharsets.US_ASCII);
            Path serverPem = directory.resolve(name + "-server.pem");
            Files.writeString(serverPem, pem(server, ca), StandardCharsets.US_ASCII);
            Path serverKey = directory.resolve(name + "-server-key.pem");
            Files.writeString(serverKey, pem(serverKeys.getPrivate()), StandardCharsets.US_ASCII);
            String password = "test-password";
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry(
                    "server", serverKeys.getPrivate(), password.toCharArray(), new Certificate[] {server, ca});
            Path keyStore = directory.resolve(name + ".p12");
            try (OutputStream out = Files.newOutputStream(keyStore)) {
                store.store(out, password.toCharArray());
            }
            return new TestCertificates(caPem, keyStore, password, serverPem, serverKey);
        } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
            throw new IllegalStateException("cannot make test certificates", e);
        }
    }

    private static String pem(Object... objects) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            for (Object object : objects) {
                writer.writeObject(object);
            }
        }
        return text.toString();
    }

    /** A server-side TLS context presenting this server certificate. */
    public javax.net.ssl.SSLContext serverSslContext() {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            try (java.io.InputStream in = Files.newInputStream(keyStore)) {
                store.load(in, password.toCharArray());
            }
            javax.net.ssl.KeyManagerFactory keys =
                    javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, password.toCharArray());
            javax.net.ssl.SSLContext tls = javax.net.ssl.SSLContext.getInstance("TLS");
            tls.init(keys.getKeyManagers(), null, null);
            return tls;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot load the test key store " + keyStore, e);
        }
    }
}
