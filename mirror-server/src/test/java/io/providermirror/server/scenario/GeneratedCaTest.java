package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.providermirror.server.app.MirrorApplication;
import io.providermirror.server.cli.ExportCommand;
import io.providermirror.server.tls.EarlierCa;
import io.providermirror.server.tls.GeneratedCa;
import io.providermirror.server.tls.PemFiles;
import io.providermirror.testkit.FakeOriginExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigInteger;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * Where the generated CA lives and what it can sign, through the whole server: outside the cache directory (so
 * neither a copy of the cache nor an export bundle carries its key), an earlier version's CA in the cache directory
 * removed at start-up with a warning, and the status page saying what trusting the CA allows.
 */
final class GeneratedCaTest {

    @TempDir
    Path tmp;

    @RegisterExtension
    final FakeOriginExtension fixture = new FakeOriginExtension();

    @Test
    void anEarlierVersionsCaInTheCacheDirectoryIsRemovedAtStartUpWithAWarning() throws Exception {
        Path cache = tmp.resolve("cache");
        Path earlier = Files.createDirectories(cache.resolve("tls"));
        KeyPair pair = KeyPairGenerator.getInstance("EC").generateKeyPair();
        X509Certificate unconstrained = unconstrainedCa(pair);
        Files.writeString(earlier.resolve("ca.pem"), PemFiles.toPem(unconstrained));
        Files.writeString(earlier.resolve("ca-key.pem"), PemFiles.toPkcs8Pem(pair.getPrivate()));
        Files.writeString(earlier.resolve("server.pem"), PemFiles.toPem(unconstrained));
        Files.writeString(earlier.resolve("server-key.pem"), PemFiles.toPkcs8Pem(pair.getPrivate()));
        ListAppender<ILoggingEvent> lines = listen(EarlierCa.class);

        try (MirrorFixture mirror =
                MirrorFixture.builder(cache, fixture.origin()).start()) {
            assertThat(earlier).doesNotExist();
            Path ca = mirror.mirror.generatedCaFile().orElseThrow();
            assertThat(ca).isEqualTo(MirrorFixtures.generatedCa(cache));
            assertThat(lines.list)
                    .filteredOn(e -> e.getLevel() == Level.WARN)
                    .singleElement()
                    .satisfies(e -> assertThat(e.getFormattedMessage())
                            .contains(earlier.toAbsolutePath().toString())
                            .contains(fingerprint(unconstrained))
                            .contains("any site")
                            .contains("clients must trust it instead")
                            .contains(ca.toAbsolutePath().toString()));
            HttpResponse<byte[]> served = mirror.get("/ca.pem");
            assertThat(served.body()).isEqualTo(Files.readAllBytes(ca));
            HttpResponse<byte[]> page = mirror.get("/");
            assertThat(new String(page.body(), StandardCharsets.UTF_8))
                    .contains("this CA can sign certificates only for <code>localhost")
                    .contains("127.0.0.1")
                    .contains("It cannot sign for any other site");
        } finally {
            ((Logger) LoggerFactory.getLogger(EarlierCa.class)).detachAppender(lines);
        }
    }

    @Test
    void theCaKeyNeverLandsInTheCacheDirectoryNorInAnExportBundle() throws Exception {
        Path cache = tmp.resolve("outside");
        fixture.origin().publish("acme", "carried", "1.0.0", "linux_amd64");
        Path keyFile;
        try (MirrorFixture mirror =
                MirrorFixture.builder(cache, fixture.origin()).start()) {
            keyFile = mirror.mirror.generatedCaFile().orElseThrow().resolveSibling("ca-key.pem");
            assertThat(mirror.get(mirror.providerPath("acme", "carried") + "1.0.0.json")
                            .statusCode())
                    .isEqualTo(200);
        }
        PrivateKey key = PemFiles.readPrivateKey(keyFile);
        List<byte[]> secrets = List.of(
                key.getEncoded(),
                Files.readAllBytes(keyFile),
                Base64.getEncoder().encode(key.getEncoded()),
                Files.readAllBytes(keyFile.resolveSibling("server-key.pem")));

        try (Stream<Path> files = Files.walk(cache)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                assertThat(file.getFileName().toString()).doesNotContain("key.pem");
                byte[] content = Files.readAllBytes(file);
                for (byte[] secret : secrets) {
                    assertThat(indexOf(content, secret)).as(file.toString()).isNegative();
                }
            }
        }

        Path bundle = tmp.resolve("bundle.tar");
        Path config = Files.writeString(tmp.resolve("outside.yaml"), MirrorFixtures.yaml(cache, fixture.origin()));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        ch.qos.logback.classic.Logger root =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ch.qos.logback.classic.Level rootLevel = root.getLevel();
        int exit = new CommandLine(new ExportCommand(new PrintStream(printed, true, StandardCharsets.UTF_8), Map.of()))
                .execute(
                        "--config",
                        config.toString(),
                        "--output",
                        bundle.toString(),
                        "--platform",
                        "linux_amd64",
                        "example.test/acme/carried@1.0.0");
        root.setLevel(rootLevel); // the command set WARN, as it does for people; later tests in this JVM want INFO
        assertThat(exit).as(printed.toString(StandardCharsets.UTF_8)).isZero();
        byte[] carried = Files.readAllBytes(bundle);
        assertThat(new String(carried, StandardCharsets.ISO_8859_1)).doesNotContain("PRIVATE KEY", "ca.pem");
        for (byte[] secret : secrets) {
            assertThat(indexOf(carried, secret)).isNegative();
        }
    }

    @Test
    void aTlsDirectoryInsideTheCacheDirectoryIsRefusedBeforeAnythingIsMade() {
        Path cache = tmp.resolve("cache");
        assertThatThrownBy(() -> MirrorApplication.start(
                        MirrorFixture.builder(cache, fixture.origin())
                                .set(
                                        "server.generatedTls.directory",
                                        cache.resolve("tls").toString())
                                .config(),
                        Clock.systemUTC()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("server.generatedTls.directory")
                .hasMessageContaining("is inside cache.directory");
        assertThat(cache).doesNotExist();
    }

    private static ListAppender<ILoggingEvent> listen(Class<?> type) {
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        ((Logger) LoggerFactory.getLogger(type)).addAppender(lines);
        return lines;
    }

    private static String fingerprint(X509Certificate certificate) throws Exception {
        return GeneratedCa.of(PemFiles.toPem(certificate).getBytes(StandardCharsets.US_ASCII))
                .fingerprint();
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** A CA as versions before the name constraints made them: CA:TRUE, ten years, no constraints. */
    private static X509Certificate unconstrainedCa(KeyPair pair) throws Exception {
        X500Name subject = new X500Name("CN=provider-mirror local CA 1,O=provider-mirror");
        return new JcaX509CertificateConverter()
                .getCertificate(new JcaX509v3CertificateBuilder(
                                subject,
                                BigInteger.ONE,
                                Date.from(Instant.now().minusSeconds(3600)),
                                Date.from(Instant.now().plusSeconds(3650L * 86400)),
                                subject,
                                pair.getPublic())
                        .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                        .build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));
    }
}
