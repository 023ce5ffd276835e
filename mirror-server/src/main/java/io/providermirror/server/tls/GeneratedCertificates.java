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
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
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
 * The certificates a mirror makes for itself when none is configured: a private CA and a server certificate it
 * signed, for {@code localhost}, {@code 127.0.0.1}, {@code ::1}, the machine's host name and the configured names.
 * The CA can sign for exactly those names and addresses (critical name constraints, which Go's TLS stack enforces
 * for the CLI), for server authentication only, for {@link #CA_LIFETIME}. They are kept in a directory of their own
 * (0700, keys 0600), outside the cache directory, so clients that trusted the CA keep trusting the mirror after a
 * restart; the server certificate is renewed (by the same CA) when it nears its end or lacks a name. A CA that could
 * sign for more (an earlier version's), that cannot sign for a configured name, or that nears its end is replaced
 * with a warning that says what clients must do; so is one whose key is not its certificate's, found when a server
 * certificate must be signed (while the kept one lasts, clients trusting the CA are served as before).
 */
public final class GeneratedCertificates {

    private static final Logger LOG = LoggerFactory.getLogger(GeneratedCertificates.class);
    /**
     * Two years: a copy of the key is of use for at most that long (and only for the mirror's own names), while
     * clients re-trust a new CA at most every two years, each CA outliving a full server certificate.
     */
    static final Duration CA_LIFETIME = Duration.ofDays(730);
    /** The longest server certificate lifetime browsers accept. */
    private static final Duration SERVER_LIFETIME = Duration.ofDays(397);

    private static final Duration RENEW_BEFORE = Duration.ofDays(30);
    private static final List<String> LOCAL_NAMES = List.of("localhost", "127.0.0.1", "::1");

    private final Path directory;
    private final List<String> configuredNames;
    private final Optional<String> machineName;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    /**
     * Certificates kept in {@code directory}, for the local names, this machine's host name and {@code
     * configuredNames} (DNS names and IP literals, checked by the configuration).
     */
    public GeneratedCertificates(Path directory, List<String> configuredNames, Clock clock) {
        this(directory, configuredNames, machineName(), clock);
    }

    GeneratedCertificates(Path directory, List<String> configuredNames, Optional<String> machineName, Clock clock) {
        this.directory = directory;
        this.configuredNames = List.copyOf(configuredNames);
        this.machineName = machineName;
        this.clock = clock;
    }

    /** The CA certificate file clients trust. */
    public Path caFile() {
        return directory.resolve("ca.pem");
    }

    private Path caKeyFile() {
        return directory.resolve("ca-key.pem");
    }

    /**
     * A CA certificate, its key and the names it may sign for (its name constraints, read once); {@code kept} when
     * read from the directory rather than made now.
     */
    private record Authority(X509Certificate certificate, PrivateKey key, boolean kept, CertificateNames permitted) {

        Authority(X509Certificate certificate, PrivateKey key, boolean kept) {
            this(
                    certificate,
                    key,
                    kept,
                    CertificateNames.permittedBy(certificate).orElseThrow());
        }

        /** Those of {@code wanted} this CA may not sign for. */
        CertificateNames leftOut(CertificateNames wanted) {
            return wanted.without(permitted);
        }
    }

    /** Loads the kept identity, or makes (and keeps) a new one. */
    public ServerIdentity loadOrCreate() throws IOException {
        PrivateFiles.directory(directory);
        Path serverFile = directory.resolve("server.pem");
        Path serverKeyFile = directory.resolve("server-key.pem");
        PrivateFiles.restrict(caKeyFile());
        PrivateFiles.restrict(serverKeyFile);
        List<String> required = new ArrayList<>(LOCAL_NAMES);
        required.addAll(configuredNames);
        CertificateNames mustSign = CertificateNames.of(required);
        machineName.ifPresent(required::add);
        CertificateNames wanted = CertificateNames.of(required);
        try {
            Authority ca = loadOrCreateCa(mustSign, wanted);
            boolean renewing = false;
            if (Files.exists(serverFile) && Files.exists(serverKeyFile)) {
                X509Certificate server = PemFiles.readCertificates(serverFile).get(0);
                if (isUsable(server, ca.certificate(), servedNames(ca, wanted))) {
                    warnOfNamesLeftOut(ca, wanted);
                    return new ServerIdentity(
                            List.of(server, ca.certificate()),
                            PemFiles.readPrivateKey(serverKeyFile),
                            Optional.of(caFile()));
                }
                renewing = true;
            }
            // Only a signature needs the CA's key, so only now must it be the certificate's: checking it proves the
            // pair by a signature made and verified, the JVM's first elliptic-curve arithmetic, which a start with a
            // server certificate still good does without.
            if (ca.kept()
                    && !ConfiguredIdentity.matches(ca.key(), ca.certificate().getPublicKey())) {
                ca = newCa(
                        wanted, Optional.of("its key " + caKeyFile() + " is not the certificate's"), ca.certificate());
            }
            warnOfNamesLeftOut(ca, wanted);
            CertificateNames names = servedNames(ca, wanted);
            if (renewing) {
                LOG.info("renewing the mirror's server certificate (expiring, or missing one of the names {})", names);
            }
            KeyPair pair = newKeyPair();
            X509Certificate server = serverCertificate(pair, ca, names);
            PrivateFiles.write(serverKeyFile, PemFiles.toPkcs8Pem(pair.getPrivate()));
            Files.writeString(serverFile, PemFiles.toPem(server, ca.certificate()), StandardCharsets.US_ASCII);
            return new ServerIdentity(List.of(server, ca.certificate()), pair.getPrivate(), Optional.of(caFile()));
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IOException(
                    "cannot generate the mirror's TLS certificates in " + directory + ": " + e.getMessage(), e);
        }
    }

    /** The names the server certificate is for: those of {@code wanted} that {@code ca} may sign for. */
    private static CertificateNames servedNames(Authority ca, CertificateNames wanted) {
        return wanted.without(ca.leftOut(wanted));
    }

    /** Says which of {@code wanted} the certificate leaves out, as {@code ca} may not sign for them; once a start. */
    private void warnOfNamesLeftOut(Authority ca, CertificateNames wanted) {
        CertificateNames outside = ca.leftOut(wanted);
        if (!outside.isEmpty()) {
            LOG.warn(
                    "this machine's host name {} is not among the names the mirror's CA may sign for ({}), so the "
                            + "server certificate leaves it out: clients must reach the mirror by one of those. "
                            + "To serve under {}, add it to server.generatedTls.names (the CA is then replaced, "
                            + "and clients must trust the new {})",
                    outside,
                    ca.permitted(),
                    outside,
                    caFile().toAbsolutePath());
        }
    }

    private Authority loadOrCreateCa(CertificateNames mustSign, CertificateNames wanted)
            throws IOException, GeneralSecurityException, OperatorCreationException {
        if (!Files.exists(caFile())) {
            return newCa(wanted, Optional.empty(), null);
        }
        X509Certificate kept = PemFiles.readCertificates(caFile()).get(0);
        PrivateKey key = Files.exists(caKeyFile()) ? PemFiles.readPrivateKey(caKeyFile()) : null;
        Optional<String> replaced = replacementReason(kept, key, mustSign);
        return replaced.isEmpty() ? new Authority(kept, key, true) : newCa(wanted, replaced, kept);
    }

    /** A new CA for {@code wanted}, kept; replacing {@code old} (with a warning saying why) when there was one. */
    private Authority newCa(CertificateNames wanted, Optional<String> replaced, X509Certificate old)
            throws IOException, GeneralSecurityException, OperatorCreationException {
        KeyPair pair = newKeyPair();
        X509Certificate ca = caCertificate(pair, wanted);
        PrivateFiles.write(caKeyFile(), PemFiles.toPkcs8Pem(pair.getPrivate()));
        Files.writeString(caFile(), PemFiles.toPem(ca), StandardCharsets.US_ASCII);
        if (replaced.isPresent()) {
            LOG.warn(
                    "replaced this mirror's CA (SHA-256 {}): {}. Clients must trust the new CA {} (SHA-256 {}; the "
                            + "status page offers it at /ca.pem) and remove the old one from their trust stores; until "
                            + "they do, they refuse the mirror's certificate",
                    GeneratedCa.fingerprint(old),
                    replaced.get(),
                    caFile().toAbsolutePath(),
                    GeneratedCa.fingerprint(ca));
        } else {
            LOG.info(
                    "generated a certificate authority for this mirror, which can sign only for {}: {}",
                    wanted,
                    caFile().toAbsolutePath());
        }
        return new Authority(ca, pair.getPrivate(), false);
    }

    /** Why a kept CA must be replaced, or empty when it can stay. */
    private Optional<String> replacementReason(X509Certificate ca, PrivateKey key, CertificateNames mustSign) {
        if (key == null) {
            return Optional.of("its key " + caKeyFile() + " is missing");
        }
        Optional<CertificateNames> permitted = CertificateNames.permittedBy(ca);
        if (permitted.isEmpty()) {
            return Optional.of("it has no name constraints, so it could sign certificates for any site (an earlier "
                    + "version made it so); the new one can sign only for the mirror's own names");
        }
        if (!permitted.get().containsAll(mustSign)) {
            return Optional.of("it cannot sign for " + mustSign.without(permitted.get())
                    + " (server.generatedTls.names, or one of localhost, 127.0.0.1, ::1)");
        }
        if (ca.getNotAfter().toInstant().isBefore(clock.instant().plus(RENEW_BEFORE))) {
            return Optional.of("it expires on " + ca.getNotAfter().toInstant());
        }
        return Optional.empty();
    }

    private boolean isUsable(X509Certificate server, X509Certificate ca, CertificateNames names) throws IOException {
        try {
            server.verify(ca.getPublicKey());
        } catch (GeneralSecurityException e) {
            return false;
        }
        if (server.getNotAfter().toInstant().isBefore(clock.instant().plus(RENEW_BEFORE))) {
            return false;
        }
        return CertificateNames.of(server).equals(names);
    }

    /** This machine's host name when it is a valid DNS name (one the CA's constraints can hold). */
    private static Optional<String> machineName() {
        try {
            String host = InetAddress.getLocalHost().getHostName().toLowerCase(Locale.ROOT);
            if (io.providermirror.model.ProviderAddress.isValidHostname(host) && !host.contains(":")) {
                return Optional.of(host);
            }
            LOG.debug("this machine's host name {} is not a DNS name; the certificate leaves it out", host);
        } catch (IOException e) {
            LOG.debug("cannot find this machine's host name: {}", e.toString());
        }
        return Optional.empty();
    }

    private KeyPair newKeyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"), random);
        return generator.generateKeyPair();
    }

    private X509Certificate caCertificate(KeyPair pair, CertificateNames names)
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
                .addExtension(Extension.nameConstraints, true, names.constraints())
                // Go and OpenSSL read a CA's extended key usage as a limit on what it signs: servers only.
                .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                .addExtension(
                        Extension.subjectKeyIdentifier, false, extensions.createSubjectKeyIdentifier(pair.getPublic()));
        return sign(builder, pair.getPrivate());
    }

    private X509Certificate serverCertificate(KeyPair pair, Authority ca, CertificateNames names)
            throws GeneralSecurityException, IOException, OperatorCreationException {
        Instant now = clock.instant();
        Instant end = now.plus(SERVER_LIFETIME);
        Instant caEnd = ca.certificate().getNotAfter().toInstant();
        JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                        ca.certificate(),
                        serial(),
                        Date.from(now.minus(Duration.ofHours(1))),
                        Date.from(end.isAfter(caEnd) ? caEnd : end),
                        new X500Name("CN=provider-mirror"),
                        pair.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                .addExtension(Extension.subjectAlternativeName, false, names.subjectAlternativeNames())
                .addExtension(
                        Extension.authorityKeyIdentifier,
                        false,
                        extensions.createAuthorityKeyIdentifier(ca.certificate()));
        return sign(builder, ca.key());
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
