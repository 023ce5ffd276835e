package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class ProviderRegistryRoutesTest {

    private static final ProviderAddress AWS = new ProviderAddress("registry.terraform.io", "hashicorp", "aws");
    private static final String BASE = "/registry/registry.terraform.io/providers.v1/hashicorp/aws/";
    private static final ProviderVersion VERSION = new ProviderVersion("5.31.0");
    private static final Platform LINUX = new Platform("linux", "amd64");

    @Test
    void parsesTheProviderRegistryRequestsAndTheChecksumFiles() {
        assertThat(RouteParser.parse(BASE + "versions")).isEqualTo(new Route.RegistryVersions(AWS));
        assertThat(RouteParser.parse(BASE + "5.31.0/download/linux/amd64"))
                .isEqualTo(new Route.RegistryDownload(AWS, VERSION, LINUX));
        assertThat(RouteParser.parse(BASE + "5.31.0/download/linux/amd64/SHA256SUMS"))
                .isEqualTo(new Route.RegistryChecksums(AWS, VERSION, LINUX, Route.ChecksumFile.SHA256SUMS));
        assertThat(RouteParser.parse(BASE + "5.31.0/download/linux/amd64/SHA256SUMS.sig"))
                .isEqualTo(new Route.RegistryChecksums(AWS, VERSION, LINUX, Route.ChecksumFile.SIGNATURE));
        assertThat(RouteParser.parse("/registry/registry.terraform.io:443/providers.v1/hashicorp/aws/versions"))
                .as("the default port is the host itself")
                .isEqualTo(new Route.RegistryVersions(AWS));
        assertThat(RouteParser.parse("/registry/example.test:8443/providers.v1/corp/my_net/versions"))
                .isEqualTo(new Route.RegistryVersions(new ProviderAddress("example.test:8443", "corp", "my_net")));
        assertThat(Route.name(RouteParser.parse(BASE + "versions"))).isEqualTo("provider_versions");
        assertThat(Route.name(RouteParser.parse(BASE + "5.31.0/download/linux/amd64")))
                .isEqualTo("provider_download");
        assertThat(Route.name(RouteParser.parse(BASE + "5.31.0/download/linux/amd64/SHA256SUMS")))
                .isEqualTo("provider_shasums");
        assertThat(Route.name(RouteParser.parse(BASE + "5.31.0/download/linux/amd64/SHA256SUMS.sig")))
                .isEqualTo("provider_signature");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/registry/registry.terraform.io/providers.v1/hashicorp/versions",
                "/registry/registry.terraform.io/providers.v1/hashicorp/aws/index.json",
                "/registry/registry.terraform.io/providers.v1/hashicorp/aws/versions/",
                "/registry/registry.terraform.io/providers.v1/hashicorp/aws/5.31/download/linux/amd64",
                "/registry/registry.terraform.io/providers.v1/hashicorp/aws/v5.31.0/download/linux/amd64",
                "/registry/registry.terraform.io/providers.v1/hashicorp/aws/5.31.0/download/linux",
                "/registry/registry.terraform.io/providers.v1/hashicorp/aws/5.31.0/download/linux/amd64/",
                "/registry/registry.terraform.io/providers.v1/hashicorp/aws/5.31.0/download/Linux/amd64",
                "/registry/registry.terraform.io/providers.v1/hashicorp/aws/5.31.0/download/../../amd64",
                "/registry/registry.terraform.io/providers.v1/hashicorp/aws/5.31.0/download/linux/amd64/SHA1SUMS",
                "/registry/registry.terraform.io/providers.v1/hashicorp/aws/5.31.0/fetch/linux/amd64",
                "/registry/registry.terraform.io/providers.v1/-bad/aws/versions",
                "/registry/Registry.terraform.io/providers.v1/hashicorp/aws/versions",
                "/registry/127.1/providers.v1/hashicorp/aws/versions",
                "/registry/registry.terraform.io/providers.v1/hashicorp/aws/5.31.0/download/linux/amd64/SHA256SUMS/x",
            })
    void malformedFacePathsAreA400(String path) {
        Route route = RouteParser.parse(path);
        assertThat(route).as(path).isInstanceOf(Route.Invalid.class);
        assertThat(((Route.Invalid) route).status()).isEqualTo(400);
    }

    @Test
    void theUrlsOfADownloadDocumentResolveAgainstItsOwnUrlAlsoBehindAPathPrefix() {
        Route.RegistryDownload route = new Route.RegistryDownload(AWS, VERSION, LINUX);
        ProviderRegistryRoutes.DownloadUrls urls = ProviderRegistryRoutes.urls(route, "");
        for (String root : new String[] {"https://mirror.corp:8443", "https://proxy.corp/tf-mirror"}) {
            URI document = URI.create(root + BASE + "5.31.0/download/linux/amd64");

            assertThat(document.resolve(urls.archive()))
                    .isEqualTo(URI.create(root + "/providers/registry.terraform.io/hashicorp/aws/"
                            + "terraform-provider-aws_5.31.0_linux_amd64.zip"));
            assertThat(document.resolve(urls.sha256Sums())).isEqualTo(URI.create(document + "/SHA256SUMS"));
            assertThat(document.resolve(urls.signature())).isEqualTo(URI.create(document + "/SHA256SUMS.sig"));
            String prefix = URI.create(root).getPath();
            assertThat(RouteParser.parse(
                            document.resolve(urls.archive()).getPath().substring(prefix.length())))
                    .isInstanceOf(Route.Archive.class);
        }
    }

    @Test
    void aSignedQueryGoesOnEveryUrl() {
        ProviderRegistryRoutes.DownloadUrls urls =
                ProviderRegistryRoutes.urls(new Route.RegistryDownload(AWS, VERSION, LINUX), "expires=1&signature=abc");

        assertThat(urls.archive()).endsWith(".zip?expires=1&signature=abc");
        assertThat(urls.sha256Sums()).isEqualTo("amd64/SHA256SUMS?expires=1&signature=abc");
        assertThat(urls.signature()).isEqualTo("amd64/SHA256SUMS.sig?expires=1&signature=abc");
    }

    @Test
    void theBaseOfAHostsProviderRegistryIsWhereItsRoutesAreParsed() {
        assertThat(ProviderRegistryRoutes.base("example.test")).isEqualTo("/registry/example.test/providers.v1/");
        assertThat(RouteParser.parse(ProviderRegistryRoutes.base("example.test") + "acme/foo/versions"))
                .isInstanceOf(Route.RegistryVersions.class);
    }
}
