package io.providermirror.upstream;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.stubFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.junit5.WireMockRuntimeInfo;
import com.github.tomakehurst.wiremock.junit5.WireMockTest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The destination of every origin request is decided per origin and per authority, before connecting. */
@WireMockTest
final class OriginDestinationTest {

    private final List<String> reports = new CopyOnWriteArrayList<>();

    private OriginHttpClient client(InternalAuthorities internal, OriginProxy proxy, OriginHttpClient.Resolver resolver)
            throws IOException {
        return new OriginHttpClient(
                new OriginHttpClient.Settings(
                        OriginClients.GENEROUS,
                        OriginClients.GENEROUS,
                        OriginClients.GENEROUS,
                        OriginTrust.of(null),
                        "test",
                        3,
                        1024,
                        new RetryPolicy(1, Duration.ofMillis(1), Duration.ofMillis(5)),
                        false,
                        internal,
                        proxy),
                duration -> {},
                (origin, host, operation, outcome, latency, failure) -> reports.add(host + " " + outcome),
                resolver);
    }

    @Test
    void anInternalAuthorityIsAllowedOnlyForTheOriginItIsConfiguredForAndOnlyOnItsPort(WireMockRuntimeInfo wm)
            throws IOException {
        stubFor(get(urlEqualTo("/x")).willReturn(aResponse().withBody("internal")));
        InternalAuthorities internal =
                InternalAuthorities.of(Map.of("a.test", Set.of("localhost:" + wm.getHttpPort())));
        OriginHttpClient client = client(internal, null, InetAddress::getAllByName);
        URI service = URI.create("http://localhost:" + wm.getHttpPort() + "/x");

        assertThat(client.getDocument("a.test", service, "test", OriginObserver.Operation.VERSIONS)
                        .body())
                .asString(StandardCharsets.UTF_8)
                .isEqualTo("internal");
        assertThatThrownBy(() -> client.getDocument("b.test", service, "test", OriginObserver.Operation.VERSIONS))
                .isInstanceOfSatisfying(
                        OriginException.class, e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.FORBIDDEN))
                .hasMessageContaining("configured for the origin b.test");
        URI otherPort = URI.create("http://localhost:" + (wm.getHttpPort() == 65535 ? 1 : wm.getHttpPort() + 1) + "/x");
        assertThatThrownBy(() -> client.getDocument("a.test", otherPort, "test", OriginObserver.Operation.VERSIONS))
                .isInstanceOfSatisfying(
                        OriginException.class, e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.FORBIDDEN));
        assertThat(wm.getWireMock().getServeEvents()).hasSize(1);
    }

    @Test
    void aNonHttpUrlIsRefusedCleanlyAndNeverReportedAsARequest() throws IOException {
        OriginHttpClient client = client(InternalAuthorities.NONE, null, InetAddress::getAllByName);

        assertThatThrownBy(() ->
                        client.openArchive("a.test", URI.create("file:///etc/passwd"), "the archive of a.test/x/y"))
                .isInstanceOfSatisfying(
                        OriginException.class,
                        e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.BAD_RESPONSE))
                .hasMessageContaining("the archive of a.test/x/y")
                .hasMessageContaining("the origin a.test")
                .hasMessageContaining("not an http(s) URL");
        assertThat(reports)
                .as("nothing was sent, and no host is reported as null")
                .isEmpty();
    }

    @Test
    void anAddressThatTurnsInternalBetweenTheCheckAndTheConnectionIsRefusedBeforeTheBodyIsRead(WireMockRuntimeInfo wm)
            throws IOException {
        stubFor(get(urlEqualTo("/x")).willReturn(aResponse().withBody("internal")));
        // DNS rebinding: the name first resolves to a public address, then (when the client connects) to loopback.
        AtomicInteger lookups = new AtomicInteger();
        OriginHttpClient.Resolver rebinding = host -> lookups.getAndIncrement() == 0
                ? new InetAddress[] {InetAddress.getByName("93.184.216.34")}
                : new InetAddress[] {InetAddress.getLoopbackAddress()};
        OriginHttpClient client = client(InternalAuthorities.NONE, null, rebinding);

        assertThatThrownBy(() -> client.getDocument(
                        "a.test",
                        URI.create("http://localhost:" + wm.getHttpPort() + "/x"),
                        "test",
                        OriginObserver.Operation.VERSIONS))
                .isInstanceOfSatisfying(
                        OriginException.class, e -> assertThat(e.reason()).isEqualTo(OriginException.Reason.FORBIDDEN))
                .hasMessageContaining("resolves to an internal address")
                .hasMessageNotContaining("127.0.0.1");
    }

    @Test
    void behindAProxyOnlyConfiguredNamesThatDoNotResolveAreLeftToTheProxy() throws Exception {
        try (RecordingProxy proxy = new RecordingProxy()) {
            InternalAuthorities internal = InternalAuthorities.of(Map.of("corp.test", Set.of("registry.corp.test")));
            OriginHttpClient client = client(
                    internal,
                    OriginProxy.of(URI.create("http://127.0.0.1:" + proxy.port()), List.of(), null, null),
                    InetAddress::getAllByName);

            for (String name :
                    new String[] {"metadata.google.internal", "kubernetes.default.svc", "registry.corp.test"}) {
                assertThatThrownBy(() -> client.getDocument(
                                "attacker.test",
                                URI.create("https://" + name + "/x"),
                                "test",
                                OriginObserver.Operation.DOWNLOAD))
                        .isInstanceOf(OriginException.class);
            }
            assertThat(proxy.requests)
                    .as("no unresolvable name of another origin reached the proxy")
                    .isEmpty();

            assertThatThrownBy(() -> client.getDocument(
                            "corp.test",
                            URI.create("https://registry.corp.test/x"),
                            "test",
                            OriginObserver.Operation.DOWNLOAD))
                    .isInstanceOf(OriginException.class);
            assertThat(proxy.requests).containsExactly("CONNECT registry.corp.test:443 HTTP/1.1");
        }
    }

    /** An HTTP proxy on loopback that records each request line and refuses it. */
    private static final class RecordingProxy implements AutoCloseable {
        final List<String> requests = new CopyOnWriteArrayList<>();
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final Thread acceptor = new Thread(this::serve, "recording-proxy");

        RecordingProxy() throws IOException {
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        private void serve() {
            while (!server.isClosed()) {
                try (Socket socket = server.accept()) {
                    BufferedReader in = new BufferedReader(
                            new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
                    String line = in.readLine();
                    // Recorded before answering, so the client's failure comes after the record.
                    requests.add(line);
                    while (line != null && !line.isEmpty()) {
                        line = in.readLine();
                    }
                    OutputStream out = socket.getOutputStream();
                    out.write("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                } catch (IOException e) {
                    // Closed: the test is over.
                }
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
