package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.server.app.MirrorApplication;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.testkit.TestCertificates;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Start-up failures say which key, which path or address, and why, and nothing is created before the
 * configuration has been checked whole.
 */
final class StartupErrorsTest {

    @TempDir
    Path tmp;

    private MirrorConfig config(String yaml) throws Exception {
        return new ConfigLoader(Map.of()).loadText(yaml);
    }

    @Test
    void aMissingCertificateIsNamedWithItsKeyAndNothingIsCreated() throws Exception {
        Path cache = tmp.resolve("cache");
        MirrorConfig config = config("""
                server: {host: 127.0.0.1, port: 0, tls: {certificate: '%s', privateKey: '%s'}}
                cache: {directory: '%s'}
                """.formatted(tmp.resolve("missing.pem"), tmp.resolve("key.pem"), cache));
        assertThatThrownBy(() -> MirrorApplication.start(config, Clock.systemUTC()))
                .hasMessage("server.tls.certificate: " + tmp.resolve("missing.pem") + " does not exist");
        assertThat(cache).doesNotExist();
    }

    @Test
    void aMissingTrustedCertificatesFileIsNamedWithItsKey() throws Exception {
        MirrorConfig config = config("""
                server: {host: 127.0.0.1, port: 0}
                cache: {directory: '%s'}
                upstream: {trustedCertificates: '%s'}
                """.formatted(tmp.resolve("cache"), tmp));
        assertThatThrownBy(() -> MirrorApplication.start(config, Clock.systemUTC()))
                .hasMessage("upstream.trustedCertificates: " + tmp + " is a directory, not a file");
        assertThat(tmp.resolve("cache")).doesNotExist();
    }

    @Test
    void aTrustedCertificatesFileThatHoldsNoCertificateStopsStartUpNamingItsKeyPathAndReason() throws Exception {
        // The trust towards origins is made when an origin is first reached; the bundle is still read at start-up.
        Path notes = Files.writeString(tmp.resolve("ca.pem"), "ask IT for the proxy's CA\n");
        Path cache = tmp.resolve("cache");
        MirrorConfig config = config("""
                server: {host: 127.0.0.1, port: 0}
                cache: {directory: '%s'}
                upstream: {trustedCertificates: '%s'}
                """.formatted(cache, notes));
        assertThatThrownBy(() -> MirrorApplication.start(config, Clock.systemUTC()))
                .hasMessage("upstream.trustedCertificates: " + notes
                        + " is not a PEM certificate bundle: No certificate data found");
        assertThat(cache).doesNotExist();
    }

    @Test
    void aCacheDirectoryThatIsAFileOrCannotBeCreatedIsExplained() throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        assertThatThrownBy(() -> MirrorApplication.start(config("""
                server: {host: 127.0.0.1, port: 0}
                cache: {directory: '%s'}
                """.formatted(file)), Clock.systemUTC()))
                .hasMessage("cache.directory: " + file + " is a file, not a directory");
        assertThatThrownBy(
                        () -> MirrorApplication.start(config("""
                server: {host: 127.0.0.1, port: 0}
                cache: {directory: '%s'}
                """.formatted(file.resolve("below"))), Clock.systemUTC()))
                .hasMessage("cache.directory: " + file.resolve("below") + " cannot be created: " + file
                        + " is a file, not a directory");
    }

    @Test
    void aPrivateKeyThatIsNotTheCertificatesOwnStopsStartUpBeforeAnythingIsGenerated() throws Exception {
        TestCertificates corp = TestCertificates.create(tmp.resolve("corp"), "corp");
        TestCertificates other = TestCertificates.create(tmp.resolve("other"), "other");
        Path cache = tmp.resolve("cache");
        MirrorConfig config = config("""
                server: {host: 127.0.0.1, port: 0, tls: {certificate: '%s', privateKey: '%s'}}
                cache: {directory: '%s'}
                """.formatted(corp.serverCertificatePem(), other.serverKeyPem(), cache));
        assertThatThrownBy(() -> MirrorApplication.start(config, Clock.systemUTC()))
                .hasMessageStartingWith(
                        "server.tls.privateKey does not match the certificate in server.tls.certificate")
                .hasMessageContaining(other.serverKeyPem().toString());
        assertThat(cache).doesNotExist();
    }

    @Test
    void aPortInUseIsNamedWithItsAddressItsKeysAndTheReasonBeforeAnythingIsCreated() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            assertThatThrownBy(() ->
                            MirrorApplication.start(config("""
                    server: {host: 127.0.0.1, port: %d}
                    cache: {directory: '%s'}
                    """.formatted(port, tmp.resolve("a"))), Clock.systemUTC()))
                    .hasMessage("cannot listen on 127.0.0.1:" + port
                            + " (server.host, server.port): address already in use");
            assertThat(tmp.resolve("a")).doesNotExist();
            assertThatThrownBy(() ->
                            MirrorApplication.start(config("""
                    server: {host: 127.0.0.1, port: 0}
                    management: {host: 127.0.0.1, port: %d}
                    cache: {directory: '%s'}
                    """.formatted(port, tmp.resolve("b"))), Clock.systemUTC()))
                    .hasMessage("cannot listen on 127.0.0.1:" + port
                            + " (management.host, management.port): address already in use");
            assertThat(tmp.resolve("b")).doesNotExist();
        }
    }
}
