package io.providermirror.server.tls;

import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The certificates a mirror makes for itself when none is configured: a private CA and a server certificate
 * it signed, with SANs for {@code localhost}, {@code 127.0.0.1}, {@code ::1} and the machine's host name.
 * They are kept in {@code <cache>/tls/} so clients that trusted the CA keep trusting the mirror after a
 * restart; the server certificate is renewed (by the same CA) when it nears its end or lacks a needed name.
 */
public final class GeneratedCertificates {

    private static final Logger LOG = LoggerFactory.getLogger(GeneratedCertificates.class);
    private static final Duration CA_LIFETIME = Duration.ofDays(3650);
    private static final Duration SERVER_LIFETIME = Duration.ofDays(397);
    private static final Duration RENEW_BEFORE = Duration.ofDays(30);

    private final Path directory;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    public GeneratedCertificates(Path directory, Clock clock) {
        this.directory = directory;
        this.clock = clock;
    }

    /** The CA certificate file clients trust. */
    public Path caFile() {
        return directory.resolve("ca.pem");
    }

    /** Loads the kept identity, or makes (and keeps) a new one. */
    public ServerIdentity loadOrCreate() throws IOException {
        Files.createDirectories(directory);
        Path caKeyFile = directory.resolve("ca-key.pem");
        Path serverFile = directory.resolve("server.pem");
        Path serverKeyFile = directory.resolve("server-key.pem");
        try {
            X509Certificate ca;
            PrivateKey caKey;
            if (Files.exists(caFile()) && Files.exists(caKeyFile)) {
                ca = PemFiles.readCertificates(caFile()).get(0);
                caKey = PemFiles.readPrivateKey(caKeyFile);
            } else {
                KeyPair pair = newKeyPair();
                ca = caCertificate(pair);
                caKey = pair.getPrivate();
                PemFiles.writePrivate(caKeyFile, PemFiles.toPkcs8Pem(caKey));
                Files.writeString(caFile(), PemFiles.toPem(ca), StandardCharsets.US_ASCII);
                LOG.info("generated a certificate authority for this mirror: {}", caFile().toAbsolutePath());
            }
            Set<String> names = hostNames();
            if (Files.exists(serverFile) && Files.exists(serverKeyFile)) {
                X509Certificate server = PemFiles.readCertificates(serverFile).get(0);
                if (isUsable(server, ca, names)) {
                    return new ServerIdentity(
                            List.of(server, ca), PemFiles.readPrivateKey(serverKeyFile), Optional.of(caFile()));
                }
                LOG.info("renewing the mirror's server certificate (expiring, or missing one of the names {})", names);
            }
            KeyPair pair = newKeyPair();
            X509Certificate server = serverCertificate(pair, ca, caKey, names);
            PemFiles.writePrivate(serverKeyFile, PemFiles.toPkcs8Pem(pair.getPrivate()));
            Files.writeString(serverFile, PemFiles.toPem(server, ca), StandardCharsets.US_ASCII);
            return new ServerIdentity(List.of(server, ca), pair.getPrivate(), Optional.of(caFile()));
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IOException(
                    "cannot generate the mirror's TLS certificates in " + directory + ": " + e.getMessage(), e);
        }
    }

    private boolean isUsable(X509Certificate server, X509Certificate ca, Set<String> names)
            throws GeneralSecurityException {
        try {
            server.verify(ca.getPublicKey());
        } catch (GeneralSecurityException e) {
            return false;
        }
        if (server.getNotAfter().toInstant().isBefore(clock.instant().plus(RENEW_BEFORE))) {
            return false;
        }
        Set<String> present = new LinkedHashSet<>();
        if (server.getSubjectAlternativeNames() != null) {
            for (List<?> name : server.getSubjectAlternativeNames()) {
                present.add(String.valueOf(name.get(1)));
            }
        }
        return present.containsAll(
                names.stream().map(n -> n.equals("::1") ? "0:0:0:0:0:0:0:1" : n).toList());
    }

    private static Set<String> hostNames() {
        Set<String> names = new LinkedHashSet<>(List.of("localhost", "127.0.0.1", "::1"));
        try {
            String host = InetAddress.getLocalHost().getHostName();
            if (host != null && !host.isBlank() && !host.contains(":")) {
                names.add(host.toLowerCase(java.util.Locale.ROOT));
            }
        } catch (IOException e) {
            LOG.debug("cannot find this machine's host name: {}", e.toString());
        }
        return names;
    }

    private KeyPair newKeyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"), random);
        return generator.generateKeyPair();
    }

    private X509Certificate caCertificate(KeyPair pair)
            throws GeneralSecurityException, IOException, OperatorCreationException {
        Instant now = clock.instant();
        X500Name subject = new X500Name("CN=provider-mirror local CA " + now.getEpochSecond() + ",O=provider-mirror");
        JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                        subject,
                        serial(),
                        Date.from(now.minus(Duration.ofHours(1))),
                        Date.from(now.plus(CA_LIFETIME)),
                        subject,
                        pair.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                .addExtension(
                        Extension.subjectKeyIdentifier, false, extensions.createSubjectKeyIdentifier(pair.getPublic()));
        return sign(builder, pair.getPrivate());
    }

    private X509Certificate serverCertificate(KeyPair pair, X509Certificate ca, PrivateKey caKey, Set<String> names)
            throws GeneralSecurityException, IOException, OperatorCreationException {
        Instant now = clock.instant();
        List<GeneralName> alternatives = new ArrayList<>();
        for (String name : names) {
            boolean ip = name.equals("::1") || name.matches("[0-9.]+");
            alternatives.add(new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, name));
        }
        JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                        ca,
                        serial(),
                        Date.from(now.minus(Duration.ofHours(1))),
                        Date.from(now.plus(SERVER_LIFETIME)),
                        new X500Name("CN=provider-mirror"),
                        pair.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                .addExtension(
                        Extension.subjectAlternativeName,
                        false,
                        new GeneralNames(alternatives.toArray(GeneralName[]::new)))
                .addExtension(Extension.authorityKeyIdentifier, false, extensions.createAuthorityKeyIdentifier(ca));
        return sign(builder, caKey);
    }

    private BigInteger serial() {
        return new BigInteger(64, random).add(BigInteger.ONE);
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key)
            throws OperatorCreationException, GeneralSecurityException {
        return new JcaX509CertificateConverter()
                .getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
    }
}
