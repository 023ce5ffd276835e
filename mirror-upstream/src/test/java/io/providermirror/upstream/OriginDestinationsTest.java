package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The destination check alone, with a resolver of the test's own: which URLs may be contacted for an origin, what
 * the resolver is asked, and which address the client is told to connect to. Nothing is connected to.
 */
final class OriginDestinationsTest {

    private final List<String> lookups = new CopyOnWriteArrayList<>();

    private OriginDestinations destinations(InternalAuthorities internal, OriginProxy proxy, String... addresses) {
        return new OriginDestinations(internal, proxy, host -> {
            lookups.add(host);
            if (addresses.length == 0) {
                throw new UnknownHostException(host);
            }
            InetAddress[] resolved = new InetAddress[addresses.length];
            for (int i = 0; i < addresses.length; i++) {
                resolved[i] = InetAddress.getByName(addresses[i]);
            }
            return resolved;
        });
    }

    @Test
    void aPublicHostIsAllowedAndTheClientConnectsToTheFirstAddressChecked() throws Exception {
        OriginDestinations destinations =
                destinations(InternalAuthorities.NONE, null, "93.184.216.34", "93.184.216.35");

        assertThat(destinations.check("a.test", null, URI.create("https://Registry.A.test/v1/"), "test"))
                .isEqualTo(InetAddress.getByName("93.184.216.34"));
        assertThat(lookups).as("the host is looked up in lower case").containsExactly("registry.a.test");
    }

    @Test
    void everyAddressTheHostResolvesToIsChecked() {
        OriginDestinations destinations = destinations(InternalAuthorities.NONE, null, "93.184.216.34", "10.0.0.7");

        assertThatThrownBy(() -> destinations.check("a.test", null, URI.create("https://registry.a.test/"), "test"))
                .isInstanceOfSatisfying(
                        OriginDestinations.Refused.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.FORBIDDEN))
                .hasMessageContaining("registry.a.test resolves to an internal address")
                .hasMessageContaining("(registry.a.test) are configured for the origin a.test")
                .hasMessageNotContaining("10.0.0.7");
    }

    @Test
    void onlyHttpAndHttpsUrlsWithAHostAreContacted() {
        OriginDestinations destinations = destinations(InternalAuthorities.NONE, null, "93.184.216.34");

        for (String url : new String[] {"ftp://a.test/x", "file:///etc/passwd", "https:///x", "http://under_score/x"}) {
            assertThatThrownBy(() -> destinations.check("a.test", null, URI.create(url), "the archive"))
                    .as(url)
                    .isInstanceOfSatisfying(
                            OriginDestinations.Refused.class,
                            e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.BAD_RESPONSE))
                    .hasMessage("the archive: the origin a.test named '" + url + "', which is not an http(s) URL");
        }
        assertThatThrownBy(() -> destinations.check(
                        "a.test", URI.create("https://a.test/x"), URI.create("gopher://a.test/x"), "the archive"))
                .hasMessageContaining("the origin a.test redirected to 'gopher://a.test/x'");
        assertThat(lookups).as("a refused URL is not even looked up").isEmpty();
    }

    @Test
    void aRedirectFromHttpsDownToHttpIsRefusedAndEveryOtherDirectionFollowed() throws Exception {
        OriginDestinations destinations = destinations(InternalAuthorities.NONE, null, "93.184.216.34");
        URI plain = URI.create("http://b.test/x");

        assertThatThrownBy(() -> destinations.check("a.test", URI.create("HTTPS://a.test/x"), plain, "test"))
                .isInstanceOfSatisfying(
                        OriginDestinations.Refused.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.BAD_RESPONSE))
                .hasMessageContaining("redirected from https to plain http (b.test)");
        InetAddress expected = InetAddress.getByName("93.184.216.34");
        assertThat(destinations.check("a.test", URI.create("http://a.test/x"), plain, "test"))
                .isEqualTo(expected);
        assertThat(destinations.check("a.test", URI.create("http://a.test/x"), URI.create("https://b.test/"), "test"))
                .isEqualTo(expected);
        assertThat(destinations.check("a.test", URI.create("https://a.test/x"), URI.create("https://b.test/"), "test"))
                .isEqualTo(expected);
        assertThat(destinations.check("a.test", null, plain, "test")).isEqualTo(expected);
    }

    @Test
    void aConfiguredInternalAuthorityIsAllowedUnresolvedOnItsPortOnly() {
        InternalAuthorities internal =
                InternalAuthorities.of(Map.of("a.test", Set.of("registry.corp.test:8443", "[fd00::5]:8443")));
        OriginDestinations destinations = destinations(internal, null, "10.0.0.7");

        assertThat(destinations.check("a.test", null, URI.create("https://registry.corp.test:8443/x"), "test"))
                .as("allowed, and left to the client to resolve")
                .isNull();
        assertThat(destinations.check("a.test", null, URI.create("https://[FD00::5]:8443/x"), "test"))
                .as("an IPv6 literal is compared without its brackets")
                .isNull();
        assertThat(lookups).isEmpty();

        assertThatThrownBy(() -> destinations.check("a.test", null, URI.create("https://registry.corp.test/x"), "test"))
                .as("port 443, not the configured 8443")
                .isInstanceOf(OriginDestinations.Refused.class);
        assertThatThrownBy(
                        () -> destinations.check("b.test", null, URI.create("https://registry.corp.test:8443/"), "t"))
                .as("another origin")
                .isInstanceOf(OriginDestinations.Refused.class);
        assertThat(lookups).containsExactly("registry.corp.test", "registry.corp.test");
    }

    @Test
    void anIpv6LiteralIsLookedUpWithoutItsBrackets() throws Exception {
        OriginDestinations destinations = destinations(InternalAuthorities.NONE, null, "2606:4700:4700::1111");

        assertThat(destinations.check("a.test", null, URI.create("https://[2606:4700:4700::1111]/x"), "test"))
                .isEqualTo(InetAddress.getByName("2606:4700:4700::1111"));
        assertThat(lookups).containsExactly("2606:4700:4700::1111");
    }

    @Test
    void aNameThatDoesNotResolveIsUnavailableAndTheMessageSaysWhenTheProxyWouldHaveResolvedIt() {
        OriginProxy proxy = OriginProxy.of(URI.create("http://127.0.0.1:3128"), List.of(".bypassed.test"), null, null);

        assertThatThrownBy(() -> destinations(InternalAuthorities.NONE, null)
                        .check("a.test", null, URI.create("https://gone.a.test/x"), "test"))
                .isInstanceOfSatisfying(
                        OriginException.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.UNAVAILABLE))
                .hasMessage("test: cannot resolve gone.a.test");
        assertThatThrownBy(() -> destinations(InternalAuthorities.NONE, proxy)
                        .check("a.test", null, URI.create("https://gone.a.test/x"), "test"))
                .hasMessage("test: cannot resolve gone.a.test; behind the proxy http://127.0.0.1:3128 only hosts"
                        + " configured for a.test under upstream.hosts are left to it to resolve");
        assertThatThrownBy(() -> destinations(InternalAuthorities.NONE, proxy)
                        .check("a.test", null, URI.create("https://x.bypassed.test/x"), "test"))
                .as("a host the proxy does not handle")
                .hasMessage("test: cannot resolve x.bypassed.test");
    }

    @Test
    void theDefaultPortIsTheSchemes() {
        assertThat(OriginDestinations.port(URI.create("https://a.test/x"))).isEqualTo(443);
        assertThat(OriginDestinations.port(URI.create("HTTPS://a.test/x"))).isEqualTo(443);
        assertThat(OriginDestinations.port(URI.create("http://a.test/x"))).isEqualTo(80);
        assertThat(OriginDestinations.port(URI.create("http://a.test:8080/x"))).isEqualTo(8080);
    }

    @Test
    void anAllowanceComparesAuthoritiesInOneSpelling() {
        assertThat(InternalAuthorities.authority("FD00::5", 8443)).isEqualTo("[fd00::5]:8443");
        assertThat(InternalAuthorities.authority("[fd00::5]", 443)).isEqualTo("[fd00::5]:443");
        assertThat(InternalAuthorities.authority("Registry.Corp.test", 80)).isEqualTo("registry.corp.test:80");
        InternalAuthorities internal =
                InternalAuthorities.of(Map.of("A.test", Set.of("[FD00::5]", "Registry.Corp.test", "10.0.0.7:8080")));
        assertThat(internal.allows("a.test", "fd00::5", 443)).isTrue();
        assertThat(internal.allows("a.test", "registry.corp.test", 443)).isTrue();
        assertThat(internal.allows("a.test", "10.0.0.7", 8080)).isTrue();
        assertThat(internal.allows("a.test", "10.0.0.7", 443)).isFalse();
        assertThat(internal.allows("b.test", "registry.corp.test", 443)).isFalse();
    }
}
