package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.FakeModuleRegistry;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.ModuleArchives;
import io.providermirror.testkit.TerraformCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The module fixtures speak the registry protocol the real CLI reads: {@code terraform} routed straight to the fake
 * origin (no mirror) installs archive modules from absolute, relative and {@code //subdir} {@code X-Terraform-Get}
 * values, so when {@link ModuleEndToEndIT} fails through the mirror, the fixture is not the one lying.
 */
final class ModuleFixturesTerraformIT {
    @TempDir
    Path tmp;

    @Test
    void terraformInstallsTheFakeRegistrysArchiveModulesDirectly() throws Exception {
        Path terraform = TerraformCli.locateOrSkip();
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"))) {
            FakeModuleRegistry registry = FakeModuleRegistry.of(origin);
            registry.serveArchive(
                    "/archives/t.tar.gz",
                    ModuleArchives.tarGz(Map.of("main.tf", "output \"version\" {\n value = \"t root\"\n}\n")));
            registry.publish(
                    "corp",
                    "tarball",
                    "generic",
                    "1.0.0",
                    registry.archiveUrl("/archives/t.tar.gz").toString());
            registry.serveArchive(
                    "/archives/s.tar.gz",
                    ModuleArchives.tarGz(Map.of(
                            "main.tf",
                            "output \"version\" {\n value = \"s root\"\n}\n",
                            "modules/inner/main.tf",
                            "output \"version\" {\n value = \"s inner\"\n}\n")));
            registry.publish(
                    "corp", "subdir", "generic", "1.0.0", "../../../../../../archives/s.tar.gz//modules/inner");
            registry.serveArchive(
                    "/archives/z.zip",
                    ModuleArchives.zip(Map.of("main.tf", "output \"version\" {\n value = \"z root\"\n}\n")));
            registry.publish("corp", "zip", "generic", "1.0.0", "/archives/z.zip");
            Path cfg = Files.writeString(
                    tmp.resolve("rc"),
                    "host \"example.test\" {\n services = {\n \"modules.v1\" = \""
                            + origin.discoveryUrl().resolve("/v1/modules/") + "\"\n }\n}\n");
            Path dir = Files.createDirectories(tmp.resolve("w"));
            StringBuilder tf = new StringBuilder();
            for (String n : new String[] {"tarball", "subdir", "zip"}) {
                tf.append("module \"" + n + "\" {\n source = \"example.test/corp/" + n
                        + "/generic\"\n version = \"1.0.0\"\n}\noutput \"" + n + "\" {\n value = module." + n
                        + ".version\n}\n");
            }
            Files.writeString(dir.resolve("main.tf"), tf);
            TerraformCli cli = TerraformCli.using(
                            terraform, Files.createDirectories(tmp.resolve("home")), cfg, origin.caCertificate())
                    .withPath(terraform.getParent());
            TerraformCli.Result init = cli.run(dir, "init", "-no-color", "-input=false");
            assertThat(init.exitCode()).as(init.output()).isZero();
            TerraformCli.Result apply = cli.run(dir, "apply", "-auto-approve", "-no-color", "-input=false");
            assertThat(apply.exitCode()).as(apply.output()).isZero();
            assertThat(apply.output()).contains("tarball = \"t root\"", "subdir = \"s inner\"", "zip = \"z root\"");
        }
    }
}
