package io.providermirror.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.GeneralSubtree;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.NameConstraints;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The generated CA can sign for the mirror's own names only, for a bounded time, with its key readable by the
 * mirror's user only; a CA that could sign for more is replaced with a warning.
 */
final class GeneratedCertificatesTest {

    @TempDir
    Path tmp;

    private final Clock clock = Clock.fixed(Instant.parse("2026-11-27T08:00:00Z"), ZoneOffset.UTC);
    private final ListAppender<ILoggingEvent> warnings = new ListAppender<>();

    @BeforeEach
    void listen() {
        warnings.start();
        ((Logger) LoggerFactory.getLogger(GeneratedCertificates.class)).addAppender(warnings);
        ((Logger) LoggerFactory.getLogger(PrivateFiles.class)).addAppender(warnings);
    }

    @AfterEach
    void stopListening() {
        ((Logger) LoggerFactory.getLogger(GeneratedCertificates.class)).detachAppender(warnings);
        ((Logger) LoggerFactory.getLogger(PrivateFiles.class)).detachAppender(warnings);
    }

    private Path directory() {
        return tmp.resolve("mirror-tls");
    }

    private GeneratedCertificates certificates(String host, String... names) {
        return new GeneratedCertificates(directory(), List.of(names), Optional.of(host), clock);
    }

    private List<String> warned() {
        return warnings.list.stream()
                .filter(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    @Test
    void theCaHasCriticalNameConstraintsForTheMirrorsNamesOnlyAndABoundedLife() throws Exception {
        ServerIdentity identity =
                certificates("buildhost", "mirror.corp.example", "10.1.2.3").loadOrCreate();
        X509Certificate ca = identity.chain().get(1);

        assertThat(ca.getCriticalExtensionOIDs()).contains(Extension.nameConstraints.getId());
        NameConstraints constraints = NameConstraints.getInstance(
                ASN1OctetString.getInstance(ca.getExtensionValue(Extension.nameConstraints.getId()))
                        .getOctets());
        assertThat(names(constraints.getPermittedSubtrees()))
                .containsExactlyInAnyOrder(
                        "dns:buildhost",
                        "dns:localhost",
                        "dns:mirror.corp.example",
                        "ip:7f000001/ffffffff",
                        "ip:0a010203/ffffffff",
                        "ip:00000000000000000000000000000001/ffffffffffffffffffffffffffffffff");
        assertThat(names(constraints.getExcludedSubtrees()))
                .as("subdomains of the permitted names are excluded")
                .containsExactlyInAnyOrder("dns:.buildhost", "dns:.localhost", "dns:.mirror.corp.example");
        assertThat(ca.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(ca.getBasicConstraints()).isZero();

        Duration life =
                Duration.between(ca.getNotBefore().toInstant(), ca.getNotAfter().toInstant());
        assertThat(life).isLessThanOrEqualTo(Duration.ofDays(731));
        X509Certificate server = identity.chain().get(0);
        assertThat(server.getNotAfter()).isBeforeOrEqualTo(ca.getNotAfter());
        assertThat(CertificateNames.of(server).display())
                .containsExactlyInAnyOrder(
                        "buildhost", "localhost", "mirror.corp.example", "10.1.2.3", "127.0.0.1", "0:0:0:0:0:0:0:1");
    }

    private static List<String> names(GeneralSubtree[] subtrees) {
        return java.util.Arrays.stream(subtrees)
                .map(GeneralSubtree::getBase)
                .map(name -> name.getTagNo() == GeneralName.dNSName
                        ? "dns:" + name.getName()
                        : "ip:"
                                + hexAddressAndMask(ASN1OctetString.getInstance(name.getName())
                                        .getOctets()))
                .toList();
    }

    private static String hexAddressAndMask(byte[] octets) {
        java.util.HexFormat hex = java.util.HexFormat.of();
        int half = octets.length / 2;
        return hex.formatHex(octets, 0, half) + "/" + hex.formatHex(octets, half, octets.length);
    }

    @Test
    void aCertificateForAnotherSiteSignedWithTheCaKeyFailsPathValidation() throws Exception {
        ServerIdentity identity =
                certificates("buildhost", "mirror.corp.example").loadOrCreate();
        X509Certificate ca = identity.chain().get(1);
        PrivateKey caKey = PemFiles.readPrivateKey(directory().resolve("ca-key.pem"));

        validate(identity.chain().get(0), ca); // the mirror's own certificate passes
        validate(leaf(new GeneralName(GeneralName.iPAddress, "127.0.0.1"), ca, caKey), ca);

        for (GeneralName name : List.of(
                new GeneralName(GeneralName.dNSName, "evil.example"),
                new GeneralName(GeneralName.dNSName, "login.mirror.corp.example"),
                new GeneralName(GeneralName.dNSName, "www.localhost"),
                new GeneralName(GeneralName.iPAddress, "10.0.0.1"),
                new GeneralName(GeneralName.iPAddress, "::2"))) {
            X509Certificate forged = leaf(name, ca, caKey);
            assertThatThrownBy(() -> validate(forged, ca))
                    .as(name.toString())
                    .isInstanceOf(CertPathValidatorException.class)
                    .hasMessageContaining("name constraints");
        }
    }

    /**
     * Validates {@code leaf} under {@code ca} with the JDK's PKIX validator. The JDK (like Bouncy Castle) applies no
     * name constraints of a trust anchor, while Go, OpenSSL and NSS apply a root's: so the CA is also the first
     * certificate of the path, where the validator applies them.
     */
    private static void validate(X509Certificate leaf, X509Certificate ca) throws Exception {
        PKIXParameters parameters = new PKIXParameters(Set.of(new TrustAnchor(ca, null)));
        parameters.setRevocationEnabled(false);
        parameters.setDate(Date.from(Instant.parse("2026-11-28T00:00:00Z")));
        CertPathValidator.getInstance("PKIX")
                .validate(CertificateFactory.getInstance("X.509").generateCertPath(List.of(leaf, ca)), parameters);
    }

    private static X509Certificate leaf(GeneralName name, X509Certificate ca, PrivateKey caKey) throws Exception {
        KeyPair pair = ecKeyPair();
        // An address goes with a permitted DNS name, so the address alone breaks the constraints (the JDK checks the
        // common name as a DNS name when a certificate has no DNS name).
        boolean dns = name.getTagNo() == GeneralName.dNSName;
        String cn = dns ? name.getName().toString() : "localhost";
        GeneralNames names = dns
                ? new GeneralNames(name)
                : new GeneralNames(new GeneralName[] {new GeneralName(GeneralName.dNSName, "localhost"), name});
        return new JcaX509CertificateConverter()
                .getCertificate(new JcaX509v3CertificateBuilder(
                                ca,
                                BigInteger.valueOf(42),
                                Date.from(Instant.parse("2026-11-27T00:00:00Z")),
                                Date.from(Instant.parse("2027-11-27T00:00:00Z")),
                                new X500Name("CN=" + cn),
                                pair.getPublic())
                        .addExtension(Extension.subjectAlternativeName, false, names)
                        .build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKey)));
    }

    private static KeyPair ecKeyPair() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    @Test
    void keysAreReadableByTheOwnerOnlyAndLooserOnesAreTightened() throws Exception {
        certificates("buildhost").loadOrCreate();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(directory())))
                .isEqualTo("rwx------");
        for (String key : List.of("ca-key.pem", "server-key.pem")) {
            assertThat(PosixFilePermissions.toString(
                            Files.getPosixFilePermissions(directory().resolve(key))))
                    .as(key)
                    .isEqualTo("rw-------");
        }

        Files.setPosixFilePermissions(directory().resolve("ca-key.pem"), PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(directory(), PosixFilePermissions.fromString("rwxr-xr-x"));
        certificates("buildhost").loadOrCreate();
        assertThat(PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(directory().resolve("ca-key.pem"))))
                .isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(directory())))
                .isEqualTo("rwx------");
        assertThat(warned()).anySatisfy(w -> assertThat(w).contains("ca-key.pem", "rw-r--r--", "0600"));
    }

    @Test
    void anUnconstrainedCaIsReplacedWithAWarningThatSaysWhatClientsMustDo() throws Exception {
        Files.createDirectories(directory());
        KeyPair pair = ecKeyPair();
        X509Certificate unconstrained = unconstrainedCa(pair);
        Files.writeString(directory().resolve("ca.pem"), PemFiles.toPem(unconstrained), StandardCharsets.US_ASCII);
        Files.writeString(directory().resolve("ca-key.pem"), PemFiles.toPkcs8Pem(pair.getPrivate()));

        ServerIdentity identity = certificates("buildhost").loadOrCreate();

        X509Certificate ca = identity.chain().get(1);
        assertThat(ca).isNotEqualTo(unconstrained);
        assertThat(CertificateNames.permittedBy(ca)).isPresent();
        assertThat(PemFiles.readCertificates(directory().resolve("ca.pem"))).containsExactly(ca);
        identity.chain().get(0).verify(ca.getPublicKey());
        assertThat(warned())
                .anySatisfy(w -> assertThat(w)
                        .contains(GeneratedCa.fingerprint(unconstrained), "any site", "Clients must trust the new CA")
                        .contains(directory().resolve("ca.pem").toAbsolutePath().toString()));
    }

    /** A CA as versions before the name constraints made them: CA:TRUE, ten years, no constraints. */
    static X509Certificate unconstrainedCa(KeyPair pair) throws Exception {
        X500Name subject = new X500Name("CN=provider-mirror local CA 1,O=provider-mirror");
        return new JcaX509CertificateConverter()
                .getCertificate(new JcaX509v3CertificateBuilder(
                                subject,
                                BigInteger.ONE,
                                Date.from(Instant.parse("2026-01-01T00:00:00Z")),
                                Date.from(Instant.parse("2036-01-01T00:00:00Z")),
                                subject,
                                pair.getPublic())
                        .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                        .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign))
                        .build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));
    }

    @Test
    void theCaStaysAcrossRestartsAndIsReplacedOnlyForAConfiguredNameItCannotSignFor() throws Exception {
        X509Certificate ca = certificates("buildhost").loadOrCreate().chain().get(1);
        assertThat(certificates("buildhost").loadOrCreate().chain().get(1)).isEqualTo(ca);

        ServerIdentity renamed = certificates("otherhost").loadOrCreate();
        assertThat(renamed.chain().get(1))
                .as("a new machine name does not cost clients their trust")
                .isEqualTo(ca);
        assertThat(CertificateNames.of(renamed.chain().get(0)).dnsNames())
                .as("the new name is left out, as the CA cannot sign for it")
                .containsExactly("localhost");
        assertThat(warned()).anySatisfy(w -> assertThat(w).contains("otherhost", "server.generatedTls.names"));

        ServerIdentity configured =
                certificates("otherhost", "mirror.corp.example").loadOrCreate();
        assertThat(configured.chain().get(1)).isNotEqualTo(ca);
        assertThat(CertificateNames.of(configured.chain().get(0)).dnsNames())
                .containsExactlyInAnyOrder("localhost", "otherhost", "mirror.corp.example");
        assertThat(warned()).anySatisfy(w -> assertThat(w).contains("cannot sign for mirror.corp.example"));
    }

    @Test
    void aCaKeyThatIsNotTheCertificatesIsReplacedWhenItMustSignAndNotBefore() throws Exception {
        ServerIdentity first = certificates("buildhost").loadOrCreate();
        X509Certificate ca = first.chain().get(1);
        Files.writeString(
                directory().resolve("ca-key.pem"),
                PemFiles.toPkcs8Pem(ecKeyPair().getPrivate()));

        ServerIdentity restarted = certificates("buildhost").loadOrCreate();
        assertThat(restarted.chain())
                .as("the server certificate still good is served, by the CA clients trust")
                .isEqualTo(first.chain());
        assertThat(warned()).isEmpty();

        Files.delete(directory().resolve("server.pem"));
        ServerIdentity renewed = certificates("buildhost").loadOrCreate();
        X509Certificate newCa = renewed.chain().get(1);
        assertThat(newCa).isNotEqualTo(ca);
        renewed.chain().get(0).verify(newCa.getPublicKey());
        assertThat(PemFiles.readCertificates(directory().resolve("ca.pem"))).containsExactly(newCa);
        assertThat(warned())
                .singleElement()
                .satisfies(w -> assertThat(w)
                        .contains(GeneratedCa.fingerprint(ca), "ca-key.pem is not the certificate's")
                        .contains("Clients must trust the new CA"));
    }

    @Test
    void aCaReplacedForItsKeyIsNotAlsoSaidToLeaveTheMachineNameOut() throws Exception {
        certificates("buildhost").loadOrCreate();
        Files.writeString(
                directory().resolve("ca-key.pem"),
                PemFiles.toPkcs8Pem(ecKeyPair().getPrivate()));

        ServerIdentity renamed = certificates("otherhost").loadOrCreate();
        assertThat(CertificateNames.of(renamed.chain().get(0)).dnsNames())
                .as("the replacement CA signs for the new machine name")
                .containsExactlyInAnyOrder("localhost", "otherhost");
        assertThat(warned())
                .as("no warning says the served certificate leaves out a name it includes")
                .singleElement()
                .satisfies(w -> assertThat(w).contains("is not the certificate's"));
    }

    @Test
    void aCaNearItsEndIsReplaced() throws Exception {
        X509Certificate ca = certificates("buildhost").loadOrCreate().chain().get(1);
        Clock later = Clock.offset(clock, GeneratedCertificates.CA_LIFETIME.minusDays(10));
        ServerIdentity renewed =
                new GeneratedCertificates(directory(), List.of(), Optional.of("buildhost"), later).loadOrCreate();
        assertThat(renewed.chain().get(1)).isNotEqualTo(ca);
        assertThat(warned()).anySatisfy(w -> assertThat(w).contains("it expires on"));
    }

    @Test
    void addressesAreParsedNeverLookedUp() throws Exception {
        assertThat(CertificateNames.of(List.of("::1", "127.0.0.1", "localhost")).addresses())
                .containsExactlyInAnyOrder(
                        InetAddress.getByAddress(new byte[] {127, 0, 0, 1}),
                        InetAddress.getByAddress(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
        assertThat(CertificateNames.address("buildhost")).isEmpty();
        assertThat(CertificateNames.address("dead:beef::1")).isPresent();
    }
}
