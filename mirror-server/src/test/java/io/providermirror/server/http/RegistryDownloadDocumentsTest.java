package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.config.AuthConfig;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.server.face.providers.PublishedPackage;
import io.providermirror.testkit.SettableClock;
import io.providermirror.upstream.DownloadDocument;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without access control a package's download document is rendered once and the same bytes answer every request;
 * with it, every answer carries URLs signed at that moment.
 */
final class RegistryDownloadDocumentsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Platform PLATFORM = new Platform("linux", "amd64");
    private static final Route.RegistryDownload ROUTE = new Route.RegistryDownload(
            new ProviderAddress("registry.example.test", "acme", "demo"),
            ProviderVersion.parse("1.2.0").orElseThrow(),
            PLATFORM);

    @TempDir
    Path directory;

    @Test
    void withoutAccessControlAPackageIsRenderedOnce() throws IOException {
        RegistryDownloadDocuments documents = new RegistryDownloadDocuments(MirrorAuth.OPEN);
        PublishedPackage pkg = pkg();

        RenderedDocument first = documents.document(ROUTE, pkg, "anonymous");

        assertThat(documents.document(ROUTE, pkg, "anonymous")).isSameAs(first);
        assertThat(documents.size()).isEqualTo(1);
        JsonNode json = JSON.readTree(first.json());
        assertThat(json.get("download_url").asText())
                .isEqualTo(ProviderRegistryRoutes.urls(ROUTE, "").archive())
                .doesNotContain("?");
        assertThat(json.get("shasums_url").asText()).isEqualTo("amd64/SHA256SUMS");
        assertThat(json.get("filename").asText()).isEqualTo("terraform-provider-demo_1.2.0_linux_amd64.zip");
    }

    @Test
    void anotherPackageGetsItsOwnDocument() throws IOException {
        RegistryDownloadDocuments documents = new RegistryDownloadDocuments(MirrorAuth.OPEN);

        RenderedDocument first = documents.document(ROUTE, pkg(), "anonymous");
        RenderedDocument second = documents.document(ROUTE, pkg(), "anonymous");

        assertThat(second).isNotSameAs(first);
        assertThat(second.json()).isEqualTo(first.json());
    }

    @Test
    void withAccessControlEveryAnswerIsSignedWhenItIsWritten() throws IOException {
        SettableClock clock = new SettableClock();
        MirrorAuth auth = MirrorAuth.load(
                new AuthConfig(List.of(MirrorAuth.hash("a-token")), null, Duration.ofMinutes(10), null),
                directory,
                clock);
        RegistryDownloadDocuments documents = new RegistryDownloadDocuments(auth);
        PublishedPackage pkg = pkg();

        String first = JSON.readTree(documents.document(ROUTE, pkg, "anonymous").json())
                .get("download_url")
                .asText();
        String signedThen = auth.archiveQuery(ROUTE.address(), ROUTE.version(), PLATFORM, "anonymous");
        clock.advance(Duration.ofMinutes(5));
        String second = JSON.readTree(
                        documents.document(ROUTE, pkg, "anonymous").json())
                .get("download_url")
                .asText();

        assertThat(first).endsWith("?" + signedThen);
        assertThat(second)
                .endsWith("?" + auth.archiveQuery(ROUTE.address(), ROUTE.version(), PLATFORM, "anonymous"))
                .isNotEqualTo(first);
        assertThat(documents.size()).isZero();
    }

    private static PublishedPackage pkg() {
        DownloadDocument document = new DownloadDocument(
                PLATFORM,
                List.of("5.0"),
                "terraform-provider-demo_1.2.0_linux_amd64.zip",
                URI.create("https://origin.example.test/demo.zip"),
                URI.create("https://origin.example.test/SHA256SUMS"),
                URI.create("https://origin.example.test/SHA256SUMS.sig"),
                "00",
                List.of());
        return new PublishedPackage(PLATFORM, document, List.of(), new byte[] {1}, new byte[] {2});
    }
}
