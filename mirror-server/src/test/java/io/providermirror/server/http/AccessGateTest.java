package io.providermirror.server.http;

import static io.providermirror.server.http.EmbeddedMirror.exchange;
import static io.providermirror.server.http.EmbeddedMirror.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.access.MirrorAuth;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** With access control on: documents want a token, archives a signed URL (or a token), the CA certificate neither. */
final class AccessGateTest {

    private static final String TOKEN = "s3cret-token";
    private static final String BASE = "/providers/example.test/acme/foo/";
    private static final ProviderAddress ADDRESS = ProviderAddress.parse("example.test/acme/foo");
    private static final ProviderVersion VERSION =
            ProviderVersion.parse("1.0.0").orElseThrow();
    private static final Platform PLATFORM = Platform.parse("linux_amd64");
    private static final String ARCHIVE = BASE + "terraform-provider-foo_1.0.0_linux_amd64.zip";

    @TempDir
    static Path directory;

    private static EmbeddedMirror mirror;

    @BeforeAll
    static void warmOneProvider() throws Exception {
        mirror = EmbeddedMirror.start(directory, Map.of("auth", Map.of("tokens", List.of(MirrorAuth.hash(TOKEN)))));
        mirror.origin.publish("acme", "foo", "1.0.0", "linux_amd64");
        mirror.warm(ADDRESS, VERSION, PLATFORM);
    }

    @AfterAll
    static void stop() {
        mirror.close();
    }

    @AfterEach
    void closeConnections() {
        mirror.closeConnections();
    }

    @Test
    void aVersionListWithoutATokenGets401WithABearerChallengeThatSaysWhatToConfigure() throws Exception {
        EmbeddedChannel channel = mirror.connection();

        EmbeddedMirror.Answer answer = exchange(channel, get(BASE + "index.json"));

        assertThat(answer.status()).isEqualTo(401);
        assertThat(answer.header(HttpHeaderNames.WWW_AUTHENTICATE)).isEqualTo("Bearer realm=\"provider-mirror\"");
        assertThat(answer.errors().get(0).asText()).contains("credentials \"mirror.test\"");
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void aVersionListWithTheTokenIsAnswered() throws Exception {
        EmbeddedChannel channel = mirror.connection();
        FullHttpRequest request = get(BASE + "index.json");
        request.headers().set(HttpHeaderNames.AUTHORIZATION, "Bearer " + TOKEN);

        assertThat(exchange(channel, request).status()).isEqualTo(200);
    }

    @Test
    void aRegistryHostsDiscoveryDocumentWantsTheTokenItsServicesWant() throws Exception {
        String document = "/registry/example.test/.well-known/terraform.json";
        EmbeddedMirror.Answer without = exchange(mirror.connection(), get(document));
        FullHttpRequest request = get(document);
        request.headers().set(HttpHeaderNames.AUTHORIZATION, "Bearer " + TOKEN);
        EmbeddedMirror.Answer with = exchange(mirror.connection(), request);

        assertThat(without.status()).isEqualTo(401);
        assertThat(without.text()).doesNotContain("modules.v1");
        assertThat(with.status()).isEqualTo(200);
        assertThat(with.text()).contains("\"modules.v1\"").contains("\"providers.v1\"");
    }

    @Test
    void anArchiveWithoutASignedUrlGets403() throws Exception {
        EmbeddedChannel channel = mirror.connection();

        EmbeddedMirror.Answer answer = exchange(channel, get(ARCHIVE));

        assertThat(answer.status()).isEqualTo(403);
        assertThat(answer.errors().isArray()).isTrue();
    }

    @Test
    void anArchiveWithTheSignedUrlTheMirrorHandsOutIsServed() throws Exception {
        EmbeddedChannel channel = mirror.connection();
        String query = mirror.core.auth().archiveQuery(ADDRESS, VERSION, PLATFORM, "anonymous");

        EmbeddedMirror.Answer answer = exchange(channel, get(ARCHIVE + "?" + query));

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body()).isNotEmpty();
    }

    @Test
    void theTransparencyLogWantsATokenAsTheDocumentsDo() throws Exception {
        EmbeddedChannel channel = mirror.connection();

        EmbeddedMirror.Answer answer = exchange(channel, get("/log/checkpoint"));

        assertThat(answer.status()).isEqualTo(401);
        assertThat(answer.errors().get(0).asText()).contains("a token for its transparency log");
    }

    @Test
    void theHealthCheckAndTheCaCertificateStayOpen() throws Exception {
        EmbeddedChannel channel = mirror.connection();

        assertThat(exchange(channel, get("/healthz")).status()).isEqualTo(200);
        assertThat(exchange(channel, get("/ca.pem")).status())
                .as("this mirror has no CA of its own here")
                .isEqualTo(404);
    }
}
