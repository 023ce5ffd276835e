package io.providermirror.upstream;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.temporaryRedirect;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.junit5.WireMockRuntimeInfo;
import com.github.tomakehurst.wiremock.junit5.WireMockTest;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

@WireMockTest
final class ServiceDiscoveryTest {

    private static ServiceDiscovery discovery(WireMockRuntimeInfo wm) {
        return new ServiceDiscovery(
                OriginClients.http(null), Map.of("example.test", URI.create(wm.getHttpBaseUrl() + "/")));
    }

    private static void discoveryAnswers(String body, String contentType) {
        com.github.tomakehurst.wiremock.client.WireMock.stubFor(get(urlEqualTo("/.well-known/terraform.json"))
                .willReturn(aResponse().withHeader("Content-Type", contentType).withBody(body)));
    }

    @Test
    void resolvesARelativeProvidersUrlAgainstTheDiscoveryUrl(WireMockRuntimeInfo wm) {
        discoveryAnswers("{\"providers.v1\":\"/v1/providers/\"}", "application/json; charset=utf-8");
        assertThat(discovery(wm).providersBase("example.test"))
                .isEqualTo(URI.create(wm.getHttpBaseUrl() + "/v1/providers/"));
    }

    @Test
    void keepsAnAbsoluteProvidersUrlAndAddsTheTrailingSlash(WireMockRuntimeInfo wm) {
        discoveryAnswers("{\"providers.v1\":\"https://registry.example.test/v1/providers\"}", "application/json");
        assertThat(discovery(wm).providersBase("example.test"))
                .isEqualTo(URI.create("https://registry.example.test/v1/providers/"));
    }

    @Test
    void followsRedirectsAndResolvesAgainstTheFinalUrl(WireMockRuntimeInfo wm) {
        com.github.tomakehurst.wiremock.client.WireMock.stubFor(
                get(urlEqualTo("/.well-known/terraform.json")).willReturn(temporaryRedirect("/moved/one")));
        com.github.tomakehurst.wiremock.client.WireMock.stubFor(
                get(urlEqualTo("/moved/one")).willReturn(temporaryRedirect("/elsewhere/discovery.json")));
        com.github.tomakehurst.wiremock.client.WireMock.stubFor(get(urlEqualTo("/elsewhere/discovery.json"))
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"providers.v1\":\"providers/\"}")));
        assertThat(discovery(wm).providersBase("example.test"))
                .isEqualTo(URI.create(wm.getHttpBaseUrl() + "/elsewhere/providers/"));
    }

    @Test
    void givesUpAfterThreeRedirects(WireMockRuntimeInfo wm) {
        com.github.tomakehurst.wiremock.client.WireMock.stubFor(
                get(urlEqualTo("/.well-known/terraform.json")).willReturn(temporaryRedirect("/loop")));
        com.github.tomakehurst.wiremock.client.WireMock.stubFor(
                get(urlEqualTo("/loop")).willReturn(temporaryRedirect("/loop")));
        assertThatThrownBy(() -> discovery(wm).providersBase("example.test"))
                .isInstanceOfSatisfying(
                        OriginException.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.BAD_RESPONSE))
                .hasMessageContaining("redirected more than 3 times");
    }

    @Test
    void refusesAnswersThatAreNotJsonObjects(WireMockRuntimeInfo wm) {
        discoveryAnswers("<html>hello</html>", "text/html");
        assertThatThrownBy(() -> discovery(wm).providersBase("example.test"))
                .hasMessageContaining("not application/json");
        discoveryAnswers("{not json", "application/json");
        assertThatThrownBy(() -> discovery(wm).providersBase("example.test")).hasMessageContaining("not valid JSON");
        discoveryAnswers("[1,2]", "application/json");
        assertThatThrownBy(() -> discovery(wm).providersBase("example.test")).hasMessageContaining("not a JSON object");
    }

    @Test
    void aHostWithoutProvidersV1HasNoProviders(WireMockRuntimeInfo wm) {
        discoveryAnswers("{\"modules.v1\":\"/m/\"}", "application/json");
        assertThatThrownBy(() -> discovery(wm).providersBase("example.test"))
                .isInstanceOfSatisfying(
                        OriginException.class, e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.NOT_FOUND))
                .hasMessageContaining("example.test offers no provider registry");
    }

    @Test
    void errorStatusesNameTheUrl(WireMockRuntimeInfo wm) {
        com.github.tomakehurst.wiremock.client.WireMock.stubFor(get(urlEqualTo("/.well-known/terraform.json"))
                .willReturn(aResponse().withStatus(503)));
        assertThatThrownBy(() -> discovery(wm).providersBase("example.test"))
                .isInstanceOfSatisfying(
                        OriginException.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.UNAVAILABLE))
                .hasMessageContaining("/.well-known/terraform.json answered HTTP 503");
    }

    @Test
    void aSlowOriginTimesOut(WireMockRuntimeInfo wm) {
        com.github.tomakehurst.wiremock.client.WireMock.stubFor(get(urlEqualTo("/.well-known/terraform.json"))
                .willReturn(aResponse().withFixedDelay(3_000).withBody("{}")));
        ServiceDiscovery impatient = new ServiceDiscovery(
                OriginClients.http(null, Duration.ofMillis(300)),
                Map.of("example.test", URI.create(wm.getHttpBaseUrl())));
        assertThatThrownBy(() -> impatient.providersBase("example.test"))
                .isInstanceOfSatisfying(
                        OriginException.class, e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.TIMEOUT));
    }

    @Test
    void withoutAnOverrideTheHostnameItselfIsAsked() {
        ServiceDiscovery plain = new ServiceDiscovery(OriginClients.http(null), Map.of());
        assertThat(plain.discoveryUrl("registry.terraform.io"))
                .isEqualTo(URI.create("https://registry.terraform.io/.well-known/terraform.json"));
        assertThat(plain.discoveryUrl("example.test:8443"))
                .isEqualTo(URI.create("https://example.test:8443/.well-known/terraform.json"));
    }
}
