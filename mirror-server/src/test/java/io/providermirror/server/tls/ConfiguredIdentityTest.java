package io.providermirror.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.providermirror.server.config.TlsConfig;
import io.providermirror.testkit.TestCertificates;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** A configured certificate is checked at start-up: its key must be its own; expiry and names are warned about. */
final class ConfiguredIdentityTest {

    @TempDir
    Path tmp;

    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(ConfiguredIdentity.class);

    @BeforeEach
    void capture() {
        lines.start();
        logger.addAppender(lines);
    }

    @AfterEach
    void release() {
        logger.detachAppender(lines);
    }

    private List<String> warnings() {
        synchronized (lines) {
            return lines.list.stream()
                    .filter(e -> e.getLevel() == Level.WARN)
                    .map(ILoggingEvent::getFormattedMessage)
                    .toList();
        }
    }

    @Test
    void aValidCertificateForThisHostIsReadWithoutWarnings() throws Exception {
        TestCertificates corp = TestCertificates.create(tmp, "corp");
        ServerIdentity identity = ConfiguredIdentity.read(
                new TlsConfig(corp.serverCertificatePem(), corp.serverKeyPem()), "localhost", Clock.systemUTC());
        assertThat(identity.chain()).isNotEmpty();
        assertThat(warnings()).isEmpty();
    }

    @Test
    void anExpiredCertificateIsWarnedAbout() throws Exception {
        TestCertificates corp = TestCertificates.create(tmp, "corp");
        Clock later = Clock.fixed(Instant.now().plus(Duration.ofDays(365)), ZoneOffset.UTC);
        ConfiguredIdentity.read(new TlsConfig(corp.serverCertificatePem(), corp.serverKeyPem()), "localhost", later);
        assertThat(warnings())
                .singleElement()
                .asString()
                .contains(corp.serverCertificatePem().toString())
                .contains("expired")
                .contains("clients will refuse it");
    }

    @Test
    void aCertificateThatDoesNotNameThisMachineIsWarnedAbout() throws Exception {
        TestCertificates corp = TestCertificates.create(tmp, "corp");
        ConfiguredIdentity.read(
                new TlsConfig(corp.serverCertificatePem(), corp.serverKeyPem()),
                "buildhost.corp.example",
                Clock.systemUTC());
        assertThat(warnings())
                .singleElement()
                .asString()
                .contains("is for [localhost, 127.0.0.1], not for this machine's name buildhost.corp.example");
    }

    @Test
    void aKeyThatIsNotTheCertificatesOwnIsRefusedNamingBothFiles() {
        TestCertificates corp = TestCertificates.create(tmp.resolve("corp"), "corp");
        TestCertificates other = TestCertificates.create(tmp.resolve("other"), "other");
        assertThatThrownBy(() -> ConfiguredIdentity.read(
                        new TlsConfig(corp.serverCertificatePem(), other.serverKeyPem()),
                        "localhost",
                        Clock.systemUTC()))
                .hasMessageStartingWith(
                        "server.tls.privateKey does not match the certificate in server.tls.certificate")
                .hasMessageContaining(other.serverKeyPem().toString())
                .hasMessageContaining(corp.serverCertificatePem().toString());
    }

    @Test
    void aSwappedCertificateAndKeyNameTheKeyOfTheFirstFileThatIsWrong() {
        TestCertificates corp = TestCertificates.create(tmp.resolve("corp"), "corp");
        assertThatThrownBy(() -> ConfiguredIdentity.read(
                        new TlsConfig(corp.serverKeyPem(), corp.serverCertificatePem()),
                        "localhost",
                        Clock.systemUTC()))
                .hasMessageStartingWith("server.tls.certificate: " + corp.serverKeyPem())
                .hasMessageContaining("swapped");
    }
}
