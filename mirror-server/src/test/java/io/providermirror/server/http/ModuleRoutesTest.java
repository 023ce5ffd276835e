package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class ModuleRoutesTest {

    private static final ModuleAddress VPC =
            new ModuleAddress("registry.terraform.io", "terraform-aws-modules", "vpc", "aws");
    private static final String BASE = "/registry/registry.terraform.io/modules.v1/terraform-aws-modules/vpc/aws/";

    @Test
    void parsesTheModuleRegistryRequestsAndTheMirrorsArchives() {
        assertThat(RouteParser.parse(BASE + "versions")).isEqualTo(new Route.ModuleVersions(VPC));
        assertThat(RouteParser.parse(BASE + "5.1.0/download"))
                .isEqualTo(new Route.ModuleDownload(VPC, new ProviderVersion("5.1.0")));
        assertThat(RouteParser.parse(BASE + "5.1.0-rc.1/module.tar.gz"))
                .isEqualTo(new Route.ModuleArchive(VPC, new ProviderVersion("5.1.0-rc.1"), "tar.gz"));
        assertThat(RouteParser.parse(BASE + "5.1.0/module.zip"))
                .isEqualTo(new Route.ModuleArchive(VPC, new ProviderVersion("5.1.0"), "zip"));
        assertThat(RouteParser.parse("/registry/example.test:8443/modules.v1/Corp/net_work/aws/versions"))
                .isEqualTo(new Route.ModuleVersions(new ModuleAddress("example.test:8443", "Corp", "net_work", "aws")));
        assertThat(Route.name(RouteParser.parse(BASE + "versions"))).isEqualTo("module_versions");
        assertThat(Route.name(RouteParser.parse(BASE + "5.1.0/download"))).isEqualTo("module_download");
        assertThat(Route.name(RouteParser.parse(BASE + "5.1.0/module.tar.gz"))).isEqualTo("module_archive");
    }

    @Test
    void parsesTheFullRegistryApiBesideTheProtocol() {
        String host = "/registry/registry.terraform.io:443/modules.v1/";
        String registry = "registry.terraform.io";
        assertThat(RouteParser.parse(host))
                .isEqualTo(new Route.ModuleApi(new ModuleApiRoutes.ListModules(registry, java.util.Optional.empty())));
        assertThat(RouteParser.parse(host + "Terraform-AWS-Modules"))
                .isEqualTo(new Route.ModuleApi(
                        new ModuleApiRoutes.ListModules(registry, java.util.Optional.of("terraform-aws-modules"))));
        assertThat(RouteParser.parse(host + "search"))
                .isEqualTo(new Route.ModuleApi(new ModuleApiRoutes.Search(registry)));
        assertThat(RouteParser.parse(host + "terraform-aws-modules/vpc"))
                .isEqualTo(new Route.ModuleApi(
                        new ModuleApiRoutes.LatestForEverySystem(registry, "terraform-aws-modules", "vpc")));
        assertThat(RouteParser.parse(BASE.substring(0, BASE.length() - 1)))
                .isEqualTo(new Route.ModuleApi(new ModuleApiRoutes.Latest(VPC)));
        assertThat(RouteParser.parse(BASE + "5.1.0"))
                .isEqualTo(new Route.ModuleApi(new ModuleApiRoutes.Details(VPC, new ProviderVersion("5.1.0"))));
        assertThat(RouteParser.parse(BASE + "download"))
                .isEqualTo(new Route.ModuleApi(new ModuleApiRoutes.LatestDownload(VPC)));
        assertThat(Route.name(RouteParser.parse(host))).isEqualTo("module_list");
        assertThat(Route.name(RouteParser.parse(host + "search"))).isEqualTo("module_search");
        assertThat(Route.name(RouteParser.parse(BASE + "5.1.0"))).isEqualTo("module_details");
        assertThat(Route.name(RouteParser.parse(BASE + "download"))).isEqualTo("module_latest_download");
        assertThat(((Route.RegistryDocument) RouteParser.parse(host + "search")).registryHost())
                .isEqualTo(registry);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/registry/registry.terraform.io/modules.v1/-bad",
                "/registry/registry.terraform.io/modules.v1/corp/bad--name",
                "/registry/registry.terraform.io/modules.v1/corp/net/AWS",
                "/registry/registry.terraform.io/modules.v1/corp/net/aws/5.1",
                "/registry/registry.terraform.io/modules.v1/corp/net/aws/download/x",
            })
    void malformedFullApiPathsAreA400(String path) {
        Route route = RouteParser.parse(path);
        assertThat(route).isInstanceOf(Route.Invalid.class);
        assertThat(((Route.Invalid) route).status()).isEqualTo(400);
    }

    @Test
    void theDefaultPortOfAHostIsTheHostItself() {
        assertThat(RouteParser.parse(
                        "/registry/registry.terraform.io:443/modules.v1/terraform-aws-modules/vpc/aws/versions"))
                .isEqualTo(new Route.ModuleVersions(VPC));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/registry/registry.terraform.io/modules.v1/terraform-aws-modules/vpc/aws/versions/x",
                "/registry/registry.terraform.io/modules.v1/terraform-aws-modules/vpc/aws/index.json",
                "/registry/registry.terraform.io/modules.v1/terraform-aws-modules/vpc/AWS/versions",
                "/registry/registry.terraform.io/modules.v1/terraform-aws-modules/vpc/aws/5.1/download",
                "/registry/registry.terraform.io/modules.v1/terraform-aws-modules/vpc/aws/latest/download",
                "/registry/registry.terraform.io/modules.v1/terraform-aws-modules/vpc/aws/5.1.0/module.exe",
                "/registry/registry.terraform.io/modules.v1/terraform-aws-modules/vpc/aws/5.1.0/../../x/download",
                "/registry/registry.terraform.io/modules.v1/-bad/vpc/aws/versions",
                "/registry/Registry.terraform.io/modules.v1/terraform-aws-modules/vpc/aws/versions",
                "/registry/127.1/modules.v1/terraform-aws-modules/vpc/aws/versions",
                "/registry/registry.terraform.io/modules.v1/terraform-aws-modules/vpc/aws/5.1.0/download/",
            })
    void malformedModulePathsAreA400(String path) {
        Route route = RouteParser.parse(path);
        assertThat(route).isInstanceOf(Route.Invalid.class);
        assertThat(((Route.Invalid) route).status()).isEqualTo(400);
    }

    @Test
    void otherRegistryServicesAreNotModules() {
        assertThat(RouteParser.parse("/registry/registry.terraform.io/other.v1/a/b/c/versions"))
                .isInstanceOf(Route.Invalid.class);
    }

    @Test
    void theBaseOfAHostsModuleRegistryIsWhereItsRoutesAreParsed() {
        assertThat(ModuleRoutes.base("example.test")).isEqualTo("/registry/example.test/modules.v1/");
        assertThat(RouteParser.parse(ModuleRoutes.base("example.test") + "acme/vpc/aws/versions"))
                .isInstanceOf(Route.ModuleVersions.class);
    }
}
