package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.server.app.MirrorApplication;
import io.providermirror.server.app.StartupBanner;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.server.config.MirrorConfig;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The banner tells an operator everything a first look needs: listeners, cache, origins, offline mode. */
final class StartupBannerTest {

    @TempDir
    Path tmp;

    @Test
    void theBannerShowsTheManagementListenerTheConfiguredOriginsAndOfflineMode() throws Exception {
        MirrorConfig config = new ConfigLoader(Map.of()).loadText("""
                server: {host: 127.0.0.1, port: 0}
                management: {host: 127.0.0.1, port: 0}
                cache: {directory: '%s'}
                upstream:
                  offline: true
                  hosts:
                    example.test: {discoveryUrl: 'https://127.0.0.1:1/.well-known/terraform.json'}
                    corp.example: {mirrorUrl: 'https://parent.corp.example/providers/'}
                    private.example: {token: abc}
                """.formatted(tmp.resolve("cache")));
        try (MirrorApplication mirror = MirrorApplication.start(config, Clock.systemUTC())) {
            String banner = StartupBanner.render(mirror, config);
            assertThat(banner)
                    .contains("management: http://127.0.0.1:"
                            + mirror.managementPort().getAsInt() + " (/metrics, /healthz, /readyz)");
            assertThat(banner).contains("OFFLINE:   upstream.offline is on");
            assertThat(banner)
                    .contains("origin:    example.test -> discovery at https://127.0.0.1:1/.well-known/terraform.json")
                    .contains("origin:    corp.example -> network mirror https://parent.corp.example/providers/")
                    .contains(
                            "origin:    private.example -> discovered at https://private.example/.well-known/terraform.json")
                    .doesNotContain("abc");
            String authority = MirrorApplication.publicHostName() + ":" + mirror.port();
            assertThat(banner)
                    .as(
                            "a host block routing providers and modules for the public registries and every configured host")
                    .contains("host \"registry.terraform.io\" {\n  services = {\n"
                            + "    \"providers.v1\" = \"https://" + authority
                            + "/registry/registry.terraform.io/providers.v1/\"\n"
                            + "    \"modules.v1\"   = \"https://" + authority
                            + "/registry/registry.terraform.io/modules.v1/\"\n  }\n}\n")
                    .contains("host \"registry.opentofu.org\"")
                    .contains("\"https://" + authority + "/registry/registry.opentofu.org/providers.v1/\"")
                    .contains("\"https://" + authority + "/registry/example.test/providers.v1/\"")
                    .contains("\"https://" + authority + "/registry/example.test/modules.v1/\"")
                    .contains("\"https://" + authority + "/registry/private.example/providers.v1/\"")
                    .contains("\"https://" + authority + "/registry/private.example/modules.v1/\"")
                    .contains("Leave out the provider_installation block above")
                    .contains("zh: hashes for every platform");
            assertThat(banner)
                    .as("a host reached through a parent network mirror has no origin signature to pass on")
                    .contains("host \"corp.example\" {\n  services = {\n    \"modules.v1\" = \"https://" + authority
                            + "/registry/corp.example/modules.v1/\"\n  }\n}\n")
                    .doesNotContain("/registry/corp.example/providers.v1/");
            assertThat(banner).as("no access control, no credentials").doesNotContain("credentials \"");
        }
    }

    @Test
    void withAccessControlTheBannerShowsTheCredentialsBlocksToAdd() throws Exception {
        MirrorConfig config = new ConfigLoader(Map.of())
                .loadText("""
                server: {host: 127.0.0.1, port: 0}
                cache: {directory: '%s/cache'}
                upstream:
                  offline: true
                  hosts:
                    private.example: {token: abc}
                auth: {tokens: ['%s']}
                """.formatted(tmp, io.providermirror.server.access.MirrorAuth.hash("a-token")));
        try (MirrorApplication mirror = MirrorApplication.start(config, Clock.systemUTC())) {
            String authority = MirrorApplication.publicHostName() + ":" + mirror.port();
            assertThat(StartupBanner.render(mirror, config))
                    .contains("Access control is on")
                    .contains("credentials \"" + authority + "\" {\n  token = \"<your token for this mirror>\"\n}\n")
                    .contains("credentials \"registry.terraform.io\" {")
                    .contains("credentials \"private.example\" {")
                    .doesNotContain("a-token");
        }
    }

    @Test
    void theBannerAdvertisesTheFirstPublicUrlAndTheGeneratedCertificateNamesIt() throws Exception {
        MirrorConfig config = new ConfigLoader(Map.of()).loadText("""
                server:
                  host: 127.0.0.1
                  port: 0
                  publicUrl: ['https://Mirror.Corp.Example/', 'https://10.1.2.3:8443']
                cache: {directory: '%s/cache'}
                upstream: {offline: true}
                """.formatted(tmp));
        try (MirrorApplication mirror = MirrorApplication.start(config, Clock.systemUTC())) {
            assertThat(StartupBanner.render(mirror, config))
                    .contains("base URL:  https://mirror.corp.example/providers/")
                    .contains("url = \"https://mirror.corp.example/providers/\"")
                    .contains("\"https://mirror.corp.example/registry/registry.terraform.io/modules.v1/\"")
                    .as("the generated CA and certificate name every public URL's host")
                    .contains("mirror.corp.example")
                    .contains("10.1.2.3");
            java.security.cert.X509Certificate served =
                    (java.security.cert.X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
                            .generateCertificate(java.nio.file.Files.newInputStream(
                                    tmp.resolve("cache-tls").resolve("server.pem")));
            assertThat(served.getSubjectAlternativeNames())
                    .extracting(name -> String.valueOf(name.get(1)))
                    .contains("mirror.corp.example", "10.1.2.3");
        }
    }

    @Test
    void aCertificateThatDoesNotNameThisMachineIsNeverAdvertisedUnderItsName() throws Exception {
        io.providermirror.testkit.TestCertificates corp =
                io.providermirror.testkit.TestCertificates.create(tmp.resolve("corp"), "corp");
        MirrorConfig config = new ConfigLoader(Map.of())
                .loadText("""
                server:
                  host: 127.0.0.1
                  port: 0
                  tls: {certificate: '%s', privateKey: '%s'}
                cache: {directory: '%s/cache'}
                upstream: {offline: true}
                """.formatted(corp.serverCertificatePem(), corp.serverKeyPem(), tmp));
        try (MirrorApplication mirror = MirrorApplication.start(config, Clock.systemUTC())) {
            // The test certificate names localhost and 127.0.0.1 only.
            assertThat(StartupBanner.render(mirror, config))
                    .contains("base URL:  https://localhost:" + mirror.port() + "/providers/");
        }
    }

    @Test
    void aPublicUrlThatIsNotHttpsIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).loadText("server: {publicUrl: ['http://mirror.corp']}"))
                .hasMessageContaining("server.publicUrl")
                .hasMessageContaining("https://host[:port][/path]");
    }
}
