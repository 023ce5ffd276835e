package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Proxy;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class OriginProxyTest {

    private static OriginProxy proxy(String... noProxy) {
        return OriginProxy.of(URI.create("http://proxy.corp:3128"), List.of(noProxy), null, null);
    }

    @Test
    void noProxyTakesNamesSuffixesAddressesRangesAndAStar() {
        OriginProxy proxy =
                proxy("internal.corp", ".svc.local", "10.0.0.0/8", "192.168.1.7", "[::1]", "git.corp:8443", "");
        assertThat(proxy.bypasses("internal.corp")).isTrue();
        assertThat(proxy.bypasses("api.internal.corp"))
                .as("a name covers its subdomains")
                .isTrue();
        assertThat(proxy.bypasses("notinternal.corp")).isFalse();
        assertThat(proxy.bypasses("x.svc.local")).isTrue();
        assertThat(proxy.bypasses("svc.local")).isTrue();
        assertThat(proxy.bypasses("10.20.30.40")).isTrue();
        assertThat(proxy.bypasses("11.0.0.1")).isFalse();
        assertThat(proxy.bypasses("192.168.1.7")).isTrue();
        assertThat(proxy.bypasses("[::1]")).isTrue();
        assertThat(proxy.bypasses("git.corp"))
                .as("a port on an entry is ignored")
                .isTrue();
        assertThat(proxy.bypasses("registry.terraform.io")).isFalse();
        assertThat(proxy.bypasses("127.0.0.1"))
                .as("loopback is proxied unless listed")
                .isFalse();
        assertThat(proxy("*").bypasses("registry.terraform.io")).isTrue();
    }

    @Test
    void selectsTheProxyOrNone() {
        OriginProxy proxy = proxy(".corp");
        assertThat(proxy.select(URI.create("https://registry.terraform.io/v1/"))
                        .get(0)
                        .type())
                .isEqualTo(Proxy.Type.HTTP);
        assertThat(proxy.select(URI.create("https://artifacts.corp/x.zip"))).containsExactly(Proxy.NO_PROXY);
    }

    @Test
    void readsTheUsualEnvironmentVariables() {
        OriginProxy proxy = OriginProxy.fromEnvironment(
                        Map.of("https_proxy", "http://user:p%40ss@proxy.corp:3128", "NO_PROXY", "localhost,.corp"))
                .orElseThrow();
        assertThat(proxy.describe()).isEqualTo("http://proxy.corp:3128");
        assertThat(proxy.username()).contains("user");
        assertThat(proxy.authenticator()).isPresent();
        assertThat(proxy.bypasses("a.corp")).isTrue();
        assertThat(OriginProxy.fromEnvironment(Map.of("HTTPS_PROXY", "proxy.corp:8080"))
                        .orElseThrow()
                        .describe())
                .isEqualTo("http://proxy.corp:8080");
        assertThat(OriginProxy.fromEnvironment(Map.of())).isEmpty();
        assertThatThrownBy(() -> OriginProxy.fromEnvironment(Map.of("HTTPS_PROXY", "https://proxy.corp")))
                .hasMessageContaining("HTTPS_PROXY");
    }

    @Test
    void configuredCredentialsWinOverTheUrlsAndOnlyTheProxyGetsThem() throws Exception {
        OriginProxy proxy =
                OriginProxy.of(URI.create("http://a:b@proxy.corp:3128"), List.of(), "mirror", "s3cret".toCharArray());
        assertThat(proxy.username()).contains("mirror");
        assertThat(proxy.describe())
                .as("never the password")
                .doesNotContain("s3cret")
                .doesNotContain("b@");
        assertThat(OriginProxy.of(URI.create("http://proxy.corp"), List.of(), null, null)
                        .authenticator())
                .isEmpty();
    }
}
