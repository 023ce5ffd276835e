package io.providermirror.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class TlsFilesTest {

    @TempDir
    Path tmp;

    private Path resource(String name) throws IOException {
        Path target = tmp.resolve(name);
        try (var in = getClass().getResourceAsStream("/tls/" + name)) {
            Files.copy(in, target);
        }
        return target;
    }

    @Test
    void readsPkcs8Pkcs1AndSec1KeysAsOpensslWritesThem() throws Exception {
        PrivateKey pkcs1 = PemFiles.readPrivateKey(resource("rsa-pkcs1.pem"));
        PrivateKey pkcs8 = PemFiles.readPrivateKey(resource("rsa-pkcs8.pem"));
        assertThat(pkcs1.getAlgorithm()).isEqualTo("RSA");
        assertThat(pkcs1.getEncoded()).isEqualTo(pkcs8.getEncoded());
        assertThat(PemFiles.readPrivateKey(resource("ec-sec1.pem")).getAlgorithm())
                .isIn("EC", "ECDSA");

        Path notAKey = Files.writeString(tmp.resolve("cert-only.pem"), "nothing here\n");
        assertThatThrownBy(() -> PemFiles.readPrivateKey(notAKey))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("cert-only.pem");
    }

    @Test
    void writtenPkcs8KeysReadBack() throws Exception {
        KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
        ec.initialize(256);
        KeyPair pair = ec.generateKeyPair();
        Path file = Files.writeString(tmp.resolve("written.pem"), PemFiles.toPkcs8Pem(pair.getPrivate()));
        assertThat(Files.readString(file)).startsWith("-----BEGIN PRIVATE KEY-----");
        assertThat(PemFiles.readPrivateKey(file).getEncoded())
                .isEqualTo(pair.getPrivate().getEncoded());
    }

    @Test
    void generatedCertificatesCoverLocalNamesAndSurviveARestart() throws Exception {
        Clock clock = Clock.fixed(Instant.now(), ZoneOffset.UTC);
        ServerIdentity first = new GeneratedCertificates(tmp.resolve("tls"), List.of(), clock).loadOrCreate();
        X509Certificate server = first.chain().get(0);
        X509Certificate ca = first.chain().get(1);
        server.verify(ca.getPublicKey());
        assertThat(ca.getBasicConstraints()).isGreaterThanOrEqualTo(0);
        List<String> names = server.getSubjectAlternativeNames().stream()
                .map(n -> String.valueOf(n.get(1)))
                .toList();
        assertThat(names).contains("localhost", "127.0.0.1");
        assertThat(first.generatedCa()).contains(tmp.resolve("tls/ca.pem"));

        ServerIdentity second = new GeneratedCertificates(tmp.resolve("tls"), List.of(), clock).loadOrCreate();
        assertThat(second.chain()).isEqualTo(first.chain());

        Clock nearExpiry = Clock.offset(clock, Duration.ofDays(380));
        ServerIdentity renewed = new GeneratedCertificates(tmp.resolve("tls"), List.of(), nearExpiry).loadOrCreate();
        assertThat(renewed.chain().get(0)).isNotEqualTo(server);
        assertThat(renewed.chain().get(1)).as("the CA clients trust stays").isEqualTo(ca);
        renewed.chain().get(0).verify(ca.getPublicKey());
    }
}
