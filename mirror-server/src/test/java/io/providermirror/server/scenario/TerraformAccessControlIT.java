package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.server.access.MirrorAuth;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.TerraformCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code terraform} against a mirror that wants a token: with the CLI's {@code credentials} block
 * for the mirror, {@code init} installs (its archive download following a signed URL, since the CLI sends no
 * credentials for it); without it, {@code init} fails with the mirror's 401. The same through a {@code url} that
 * lacks its trailing slash, which the mirror answers at the root.
 */
final class TerraformAccessControlIT {

    private static final String TOKEN = "ci-runner-token";

    @TempDir
    Path tmp;

    private TerraformCli.Result init(
            Path terraform, MirrorFixture mirror, String name, boolean withCredentials, String basePath)
            throws Exception {
        String host = "localhost:" + mirror.mirror.port();
        Path cliConfig = Files.writeString(
                tmp.resolve(name + ".rc"),
                (withCredentials ? "credentials \"" + host + "\" {\n  token = \"" + TOKEN + "\"\n}\n" : "")
                        + "provider_installation {\n  network_mirror {\n    url = \"https://" + host
                        + basePath + "\"\n  }\n}\n");
        Path project = Files.createDirectories(tmp.resolve(name));
        Files.writeString(project.resolve("main.tf"), """
                terraform {
                  required_providers {
                    guarded = { source = "example.test/acme/guarded", version = "1.0.0" }
                  }
                }
                """);
        Path home = Files.createDirectories(tmp.resolve(name + "-home"));
        return TerraformCli.using(
                        terraform,
                        home,
                        cliConfig,
                        mirror.mirror.generatedCaFile().orElseThrow())
                .run(project, "init", "-input=false", "-no-color");
    }

    @Test
    void initWorksWithTheCredentialsBlockAndFailsWithoutIt() throws Exception {
        Path terraform = TerraformCli.locateOrSkip();
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), origin)
                        .set("auth.tokens", List.of(MirrorAuth.hash(TOKEN)))
                        .start()) {
            origin.publish("acme", "guarded", "1.0.0", "linux_amd64");

            // "/providers" without its trailing slash makes the CLI ask at /<hostname>/...: answered, and guarded,
            // alike.
            for (String basePath : List.of("/providers/", "/providers")) {
                String name = basePath.endsWith("/") ? "" : "-no-slash";
                TerraformCli.Result allowed = init(terraform, mirror, "with-token" + name, true, basePath);
                assertThat(allowed.exitCode()).as(allowed.output()).isZero();
                assertThat(allowed.output()).contains("Installed example.test/acme/guarded v1.0.0");

                TerraformCli.Result refused = init(terraform, mirror, "without-token" + name, false, basePath);
                assertThat(refused.exitCode()).as(refused.output()).isNotZero();
                // Terraform's words for the mirror's 401, whether or not it sent credentials.
                assertThat(refused.output().replaceAll("\\s+", " "))
                        .contains("example.test/acme/guarded")
                        .contains("host localhost:" + mirror.mirror.port()
                                + " rejected the given authentication credentials");
            }
        }
    }
}
