package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.providermirror.testkit.ExternalTools;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.TerraformCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page in a real browser: after the real {@code terraform} installed a provider through the
 * mirror and an archive was refused, headless Chromium renders the page (its script runs): the provider, the
 * origin by its hostname and failing, the recent problem, the trust instructions, the chart; then the provider's
 * own view with its hashes. Screenshots of both are left at {@code target/status-page.png} and
 * {@code target/status-page-provider.png} for people to look at.
 */
final class StatusPageIT {

    @TempDir
    Path tmp;

    private ExternalTools.Result chromium(Path chromium, String... arguments) throws Exception {
        String[] flags = {
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--ignore-certificate-errors",
            "--user-data-dir=" + tmp.resolve("chromium-profile")
        };
        String[] all = new String[flags.length + arguments.length];
        System.arraycopy(flags, 0, all, 0, flags.length);
        System.arraycopy(arguments, 0, all, flags.length, arguments.length);
        return ExternalTools.run(120, chromium, all);
    }

    @Test
    void theStatusPageShowsAnInstalledProviderInARealBrowser() throws Exception {
        Path terraform = TerraformCli.locateOrSkip();
        Path chromium = ExternalTools.locateOrSkip("chromium", "chromium", "chromium-browser", "google-chrome");
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.start(tmp.resolve("cache"), origin, Duration.ofMinutes(15))) {
            origin.publish("acme", "shown", "2.1.0", "linux_amd64", "darwin_arm64");
            // A refused archive, so the page has a problem to show and an origin that is not healthy.
            origin.publish("acme", "forged", "1.0.0", FakeOrigin.Tamper.ARCHIVE_BYTES, 0, "linux_amd64");
            Path project = Files.createDirectories(tmp.resolve("project"));
            Files.writeString(project.resolve("main.tf"), """
                    terraform {
                      required_providers {
                        shown = { source = "example.test/acme/shown", version = "2.1.0" }
                      }
                    }
                    """);
            String base = "https://localhost:" + mirror.mirror.port();
            Path cliConfig = Files.writeString(
                    tmp.resolve("terraform.rc"),
                    "provider_installation {\n  network_mirror {\n    url = \"" + base + "/providers/\"\n  }\n}\n");
            Files.createDirectories(tmp.resolve("home"));
            TerraformCli.Result init = TerraformCli.using(
                            terraform,
                            tmp.resolve("home"),
                            cliConfig,
                            mirror.mirror.generatedCaFile().orElseThrow())
                    .run(project, "init", "-input=false", "-no-color");
            assertThat(init.exitCode()).as(init.output()).isZero();
            io.providermirror.testkit.FakeModuleRegistry modules =
                    io.providermirror.testkit.FakeModuleRegistry.of(origin);
            modules.serveArchive(
                    "/archives/net.tar.gz",
                    io.providermirror.testkit.ModuleArchives.tarGz(java.util.Map.of("main.tf", "# net\n")));
            modules.publish("corp", "net", "aws", "1.4.0", "/archives/net.tar.gz");
            String location = mirror.get("/registry/example.test/modules.v1/corp/net/aws/1.4.0/download")
                    .headers()
                    .firstValue("X-Terraform-Get")
                    .orElseThrow();
            assertThat(mirror.get(java.net.URI.create(location.split("\\?")[0]).getRawPath())
                            .statusCode())
                    .isEqualTo(200);

            try {
                mirror.get(mirror.providerPath("acme", "forged") + "terraform-provider-forged_1.0.0_linux_amd64.zip");
            } catch (java.io.IOException aborted) {
                // The refusal may cut a response short instead of answering 502; either way it is refused.
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> new String(mirror.get("/").body(), java.nio.charset.StandardCharsets.UTF_8)
                            .contains("id=\"problems\""));

            ExternalTools.Result dom = chromium(chromium, "--virtual-time-budget=5000", "--dump-dom", base + "/");
            assertThat(dom.exitCode()).as(dom.output()).isZero();
            assertThat(dom.output())
                    .as("the page's script ran in the browser")
                    .contains("data-ready=\"yes\"")
                    .contains("network_mirror")
                    .contains("url = \"" + base + "/providers/\"")
                    .contains("<code>example.test/acme/shown</code>")
                    .contains("2.1.0")
                    .contains("linux_amd64")
                    .contains("id=\"providers-cached\">1<")
                    .as("origins by hostname, with where they are reached")
                    .contains("<code>example.test</code>")
                    .contains("discovery at " + origin.discoveryUrl())
                    .as("the refused archive counts")
                    .contains("failing")
                    .contains("<code>example.test/acme/forged 1.0.0 linux_amd64</code>")
                    .as("the trust instructions and the chart")
                    .contains("href=\"/ca.pem\"")
                    .contains("update-ca-certificates")
                    .contains("<svg id=\"chart-requests\"")
                    .contains("href=\"/status/providers/example.test/acme/shown\"")
                    .contains("href=\"/metrics\"")
                    .contains("href=\"/docs\"")
                    .as(
                            "the host blocks for modules and providers, with their copy button, and the cached module with its pin")
                    .contains("id=\"copy-hosts\"")
                    .contains("\"providers.v1\" = \"" + base + "/registry/registry.terraform.io/providers.v1/\"")
                    .contains("\"providers.v1\" = \"" + base + "/registry/example.test/providers.v1/\"")
                    .contains("\"modules.v1\"   = \"" + base + "/registry/registry.terraform.io/modules.v1/\"")
                    .contains("\"modules.v1\"   = \"" + base + "/registry/example.test/modules.v1/\"")
                    .contains("<td>example.test/corp/net/aws</td><td>1.4.0</td>")
                    .contains("<code>sha256 ");

            ExternalTools.Result detail = chromium(
                    chromium,
                    "--virtual-time-budget=3000",
                    "--dump-dom",
                    base + "/status/providers/example.test/acme/shown");
            assertThat(detail.exitCode()).as(detail.output()).isZero();
            assertThat(detail.output())
                    .contains("<h2>2.1.0</h2>")
                    .contains("linux_amd64")
                    .contains("darwin_arm64")
                    .contains("<code>h1:")
                    .contains("zh:")
                    .contains("key " + origin.signingKey().signingKeyId());
            Path detailShot = Path.of("target", "status-page-provider.png").toAbsolutePath();
            Files.deleteIfExists(detailShot);
            assertThat(chromium(
                                    chromium,
                                    "--window-size=1280,640",
                                    "--hide-scrollbars",
                                    "--virtual-time-budget=3000",
                                    "--screenshot=" + detailShot,
                                    base + "/status/providers/example.test/acme/shown")
                            .exitCode())
                    .isZero();

            Path screenshot = Path.of("target", "status-page.png").toAbsolutePath();
            Files.deleteIfExists(screenshot);
            ExternalTools.Result shot = chromium(
                    chromium,
                    "--window-size=1280,2000",
                    "--hide-scrollbars",
                    "--virtual-time-budget=5000",
                    "--screenshot=" + screenshot,
                    base + "/");
            assertThat(shot.exitCode()).as(shot.output()).isZero();
            byte[] png = Files.readAllBytes(screenshot);
            assertThat(png).startsWith(0x89, 'P', 'N', 'G');
            assertThat(png.length).as("a real page, not an empty one").isGreaterThan(20_000);
        }
    }
}
