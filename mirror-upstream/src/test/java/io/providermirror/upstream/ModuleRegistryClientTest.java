package io.providermirror.upstream;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.stubFor;
import static com.github.tomakehurst.wiremock.client.WireMock.temporaryRedirect;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.verify;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.junit5.WireMockRuntimeInfo;
import com.github.tomakehurst.wiremock.junit5.WireMockTest;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.ModuleSource.Kind;
import io.providermirror.upstream.verify.ArchiveType;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The module registry protocol against a WireMock origin. */
@WireMockTest
final class ModuleRegistryClientTest {

    private static final ModuleAddress HELLO = ModuleAddress.parse("example.test/acme/hello/null");
    private static final ProviderVersion V110 = ProviderVersion.parse("1.1.0").orElseThrow();
    private static final String DOWNLOAD = "/v1/modules/acme/hello/null/1.1.0/download";

    private static ModuleRegistryClient client() {
        return new ModuleRegistryClient(OriginClients.http(null), OriginCredentials.of(Map.of("example.test", "tok")));
    }

    private static URI base(WireMockRuntimeInfo wm) {
        return URI.create(wm.getHttpBaseUrl() + "/v1/modules/");
    }

    @Test
    void listsTheSemanticVersionsAndKeepsTheOriginsBytesWithTheToken(WireMockRuntimeInfo wm) {
        String body = "{\"modules\":[{\"versions\":[{\"version\":\"1.1.0\"},{\"version\":\"latest\"},"
                + "{\"version\":\"2.0.0-rc1\"}]}]}";
        stubFor(get(urlEqualTo("/v1/modules/acme/hello/null/versions"))
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/json")
                        .withBody(body)));
        ModuleRegistryClient.FetchedModuleVersions fetched = client().versions(base(wm), HELLO);
        assertThat(fetched.versions())
                .containsExactly(V110, ProviderVersion.parse("2.0.0-rc1").orElseThrow());
        assertThat(new String(fetched.body(), StandardCharsets.UTF_8)).isEqualTo(body);
        verify(getRequestedFor(urlEqualTo("/v1/modules/acme/hello/null/versions"))
                .withHeader("Authorization", equalTo("Bearer tok")));
    }

    @Test
    void followsARedirectOfTheVersionList(WireMockRuntimeInfo wm) {
        stubFor(get(urlEqualTo("/v1/modules/acme/hello/null/versions")).willReturn(temporaryRedirect("/moved")));
        stubFor(get(urlEqualTo("/moved"))
                .willReturn(aResponse().withBody("{\"modules\":[{\"versions\":[{\"version\":\"1.1.0\"}]}]}")));
        assertThat(client().versions(base(wm), HELLO).versions()).containsExactly(V110);
    }

    @Test
    void anUnknownModuleIsNotFoundAndNamesTheModule(WireMockRuntimeInfo wm) {
        stubFor(get(urlEqualTo("/v1/modules/acme/hello/null/versions"))
                .willReturn(aResponse().withStatus(404)));
        assertThatThrownBy(() -> client().versions(base(wm), HELLO))
                .isInstanceOfSatisfying(
                        OriginException.class, e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.NOT_FOUND))
                .hasMessageContaining("example.test/acme/hello/null");
    }

    @Test
    void aServerErrorIsUnavailableAndNamesTheModuleAndTheOrigin(WireMockRuntimeInfo wm) {
        stubFor(get(urlEqualTo(DOWNLOAD)).willReturn(aResponse().withStatus(503)));
        assertThatThrownBy(() -> client().download(base(wm), HELLO, V110))
                .isInstanceOfSatisfying(
                        OriginException.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.UNAVAILABLE))
                .hasMessageContaining("example.test/acme/hello/null 1.1.0")
                .hasMessageContaining("localhost:" + wm.getHttpPort());
    }

    @Test
    void malformedJsonIsABadResponse(WireMockRuntimeInfo wm) {
        stubFor(get(urlEqualTo("/v1/modules/acme/hello/null/versions"))
                .willReturn(aResponse().withBody("{\"modules\":[")));
        stubFor(get(urlEqualTo(DOWNLOAD)).willReturn(aResponse().withStatus(200).withBody("{\"location\":7}")));
        assertThatThrownBy(() -> client().versions(base(wm), HELLO))
                .isInstanceOfSatisfying(
                        OriginException.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.BAD_RESPONSE));
        assertThatThrownBy(() -> client().download(base(wm), HELLO, V110))
                .isInstanceOfSatisfying(
                        OriginException.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.BAD_RESPONSE));
    }

    @Test
    void aLocationAnswerWhoseKeysDifferOnlyInCaseIsRefused(WireMockRuntimeInfo wm) {
        stubFor(get(urlEqualTo(DOWNLOAD))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"location\":\"https://files.test/hello-1.1.0.zip\","
                                + "\"LOCATION\":\"https://evil.test/other.zip\"}")));
        assertThatThrownBy(() -> client().download(base(wm), HELLO, V110))
                .isInstanceOfSatisfying(
                        OriginException.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.BAD_RESPONSE))
                .hasMessageContaining("example.test/acme/hello/null 1.1.0")
                .hasMessageContaining("\"location\" and \"LOCATION\"");
    }

    @Test
    void readsTheSourceFromA204WithXTerraformGet(WireMockRuntimeInfo wm) {
        stubFor(get(urlEqualTo(DOWNLOAD))
                .willReturn(aResponse()
                        .withStatus(204)
                        .withHeader("X-Terraform-Get", "git::https://git.test/hello.git//sub?ref=v1.1.0")));
        ModuleSource source = client().download(base(wm), HELLO, V110);
        assertThat(source.kind()).isEqualTo(Kind.GIT);
        assertThat(source.url()).isEqualTo(URI.create("https://git.test/hello.git"));
        assertThat(source.subdirectory()).isEqualTo("sub");
        assertThat(source.gitRef()).isEqualTo("v1.1.0");
    }

    @Test
    void readsTheSourceFromA200WithAJsonLocationAsOpenTofusRegistryAnswers(WireMockRuntimeInfo wm) {
        stubFor(get(urlEqualTo(DOWNLOAD))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"location\":\"https://files.test/hello-1.1.0.zip\"}")));
        ModuleSource source = client().download(base(wm), HELLO, V110);
        assertThat(source.kind()).isEqualTo(Kind.ARCHIVE);
        assertThat(source.archiveType()).isEqualTo(ArchiveType.ZIP);
        assertThat(source.url()).isEqualTo(URI.create("https://files.test/hello-1.1.0.zip"));
    }

    @Test
    void resolvesARelativeLocationAgainstTheDownloadUrlKeepingTheSubdirectory(WireMockRuntimeInfo wm) {
        stubFor(get(urlEqualTo(DOWNLOAD)).willReturn(temporaryRedirect("/elsewhere/download")));
        stubFor(get(urlEqualTo("/elsewhere/download"))
                .willReturn(aResponse().withStatus(204).withHeader("X-Terraform-Get", "./pkg.tar.gz//modules/a")));
        ModuleSource source = client().download(base(wm), HELLO, V110);
        // The test origin speaks plain http, so the source is not mirrorable; where it points is still told.
        assertThat(source.url())
                .isEqualTo(URI.create(wm.getHttpBaseUrl() + "/v1/modules/acme/hello/null/1.1.0/pkg.tar.gz"));
        assertThat(source.subdirectory()).isEqualTo("modules/a");
        assertThat(source.reason()).contains("plain http");
    }

    @Test
    void a204WithoutXTerraformGetIsABadResponse(WireMockRuntimeInfo wm) {
        stubFor(get(urlEqualTo(DOWNLOAD)).willReturn(aResponse().withStatus(204)));
        assertThatThrownBy(() -> client().download(base(wm), HELLO, V110))
                .isInstanceOfSatisfying(
                        OriginException.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.BAD_RESPONSE))
                .hasMessageContaining("X-Terraform-Get");
    }

    @Test
    void aHostileSourceIsABadResponseThatDoesNotRepeatItsCredentials(WireMockRuntimeInfo wm) {
        stubFor(get(urlEqualTo(DOWNLOAD))
                .willReturn(aResponse()
                        .withStatus(204)
                        .withHeader("X-Terraform-Get", "https://user:secret@files.test/x.zip//../../etc")));
        assertThatThrownBy(() -> client().download(base(wm), HELLO, V110))
                .isInstanceOfSatisfying(
                        OriginException.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.BAD_RESPONSE))
                .message()
                .doesNotContain("secret")
                .contains("example.test/acme/hello/null 1.1.0");
    }

    @Test
    void aDownloadThatRedirectsToAnotherAuthorityGetsNoToken(WireMockRuntimeInfo wm) {
        stubFor(get(urlEqualTo(DOWNLOAD))
                .willReturn(temporaryRedirect("http://127.0.0.1:" + wm.getHttpPort() + "/other/download")));
        stubFor(get(urlEqualTo("/other/download"))
                .willReturn(aResponse().withStatus(204).withHeader("X-Terraform-Get", "https://files.test/x.zip")));
        assertThat(client().download(base(wm), HELLO, V110).kind()).isEqualTo(Kind.ARCHIVE);
        verify(getRequestedFor(urlEqualTo(DOWNLOAD)).withHeader("Authorization", equalTo("Bearer tok")));
        verify(getRequestedFor(urlEqualTo("/other/download")).withHeader("Authorization", absent()));
    }

    @Test
    void discoveryReturnsTheModulesBase(WireMockRuntimeInfo wm) {
        stubFor(get(urlEqualTo("/.well-known/terraform.json"))
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"providers.v1\":\"/v1/providers/\",\"modules.v1\":\"/v1/modules\"}")));
        ServiceDiscovery discovery = new ServiceDiscovery(
                OriginClients.http(null), Map.of("example.test", URI.create(wm.getHttpBaseUrl() + "/")));
        assertThat(discovery.modulesBase("example.test")).isEqualTo(base(wm));
        assertThat(discovery.providersBase("example.test"))
                .isEqualTo(URI.create(wm.getHttpBaseUrl() + "/v1/providers/"));
    }
}
