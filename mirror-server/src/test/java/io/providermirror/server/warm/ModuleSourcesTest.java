package io.providermirror.server.warm;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class ModuleSourcesTest {

    @TempDir
    Path tmp;

    @Test
    void registryModuleCallsAreReadWithTheirConstraintsAndDirectSourcesAreLeftOut() throws Exception {
        Files.writeString(tmp.resolve("main.tf"), """
                module "vpc" {
                  source  = "terraform-aws-modules/vpc/aws"
                  version = "~> 5.0"
                }
                module "inner" {
                  source  = "registry.corp.example/net/vpc/aws//modules/inner"
                  version = "1.2.0"
                }
                module "any" {
                  source = "hashicorp/consul/aws"
                }
                module "local" {
                  source = "./modules/local"
                }
                module "git" {
                  source = "git::https://example.com/net.git?ref=v1"
                }
                module "forge" {
                  source = "github.com/hashicorp/example"
                }
                module "url" {
                  source = "https://example.com/net.tar.gz"
                }
                """);
        Files.writeString(tmp.resolve("notes.txt"), "module \"x\" { source = \"a/b/c\" }");

        List<ModuleRequest> requests = ModuleSources.configurationDirectory(tmp);

        assertThat(requests)
                .extracting(ModuleRequest::address)
                .containsExactlyInAnyOrder(
                        new ModuleAddress("registry.terraform.io", "terraform-aws-modules", "vpc", "aws"),
                        new ModuleAddress("registry.corp.example", "net", "vpc", "aws"),
                        new ModuleAddress("registry.terraform.io", "hashicorp", "consul", "aws"));
        ModuleRequest vpc = requests.stream()
                .filter(r -> r.address().name().equals("vpc")
                        && r.address().namespace().equals("terraform-aws-modules"))
                .findFirst()
                .orElseThrow();
        assertThat(vpc.constraints().matches(new ProviderVersion("5.3.0"))).isTrue();
        assertThat(vpc.constraints().matches(new ProviderVersion("6.0.0"))).isFalse();
        assertThat(vpc.source()).contains("module.vpc");
    }
}
