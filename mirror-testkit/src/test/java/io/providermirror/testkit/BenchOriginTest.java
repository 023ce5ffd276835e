package io.providermirror.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class BenchOriginTest {

    @TempDir
    Path directory;

    @Test
    void servesTheModuleRegistryWithA204DownloadNamingAnArchiveOnItself() throws Exception {
        try (BenchOrigin.Running origin = BenchOrigin.start(directory, 1000, 2000, 0)) {
            TrustingClient client = new TrustingClient(origin.caPem());
            URI base = origin.baseUrl();

            HttpResponse<byte[]> discovery = client.get(base.resolve("/.well-known/terraform.json"));
            HttpResponse<byte[]> versions = client.get(base.resolve("/v1/modules/acme/network/aws/versions"));
            HttpResponse<byte[]> download = client.get(base.resolve("/v1/modules/acme/network/aws/1.0.0/download"));

            assertThat(text(discovery))
                    .contains("\"providers.v1\":\"/v1/providers/\"")
                    .contains("\"modules.v1\":\"/v1/modules/\"");
            assertThat(text(versions)).isEqualTo("{\"modules\":[{\"versions\":[{\"version\":\"1.0.0\"}]}]}");
            assertThat(download.statusCode()).isEqualTo(204);
            assertThat(download.body()).isEmpty();
            String archiveUrl = download.headers().firstValue("X-Terraform-Get").orElseThrow();
            assertThat(archiveUrl)
                    .isEqualTo("https://127.0.0.1:" + origin.port() + "/module-archives/acme/network/aws/1.0.0.tar.gz");

            HttpResponse<byte[]> archive = client.get(URI.create(archiveUrl));
            assertThat(archive.statusCode()).isEqualTo(200);
            assertThat(FakeModuleRegistryTest.untar(archive.body()))
                    .isEqualTo(new TreeMap<>(BenchModules.files("network", "aws")))
                    .containsKey("main.tf");
            // Deterministic: the same address gives the same bytes, in this run and the next.
            assertThat(ModuleArchives.tarGz(BenchModules.files("network", "aws")))
                    .isEqualTo(archive.body());
        }
    }

    @Test
    void refusesModulePathsItDoesNotPublish() throws Exception {
        try (BenchOrigin.Running origin = BenchOrigin.start(directory, 1000, 2000, 0)) {
            TrustingClient client = new TrustingClient(origin.caPem());
            URI base = origin.baseUrl();

            assertThat(client.get(base.resolve("/v1/modules/other/network/aws/versions"))
                            .statusCode())
                    .isEqualTo(404);
            assertThat(client.get(base.resolve("/v1/modules/acme/network/aws/2.0.0/download"))
                            .statusCode())
                    .isEqualTo(404);
            assertThat(client.get(base.resolve("/module-archives/acme/network/aws/1.0.0.zip"))
                            .statusCode())
                    .isEqualTo(404);
        }
    }

    @Test
    void stillServesProvidersBesideModules() throws Exception {
        try (BenchOrigin.Running origin = BenchOrigin.start(directory, 1000, 2000, 0)) {
            TrustingClient client = new TrustingClient(origin.caPem());

            HttpResponse<byte[]> versions = client.get(origin.baseUrl().resolve("/v1/providers/acme/small/versions"));

            assertThat(text(versions)).contains("\"version\":\"1.0.0\"").contains("\"os\":\"linux\"");
        }
    }

    private static String text(HttpResponse<byte[]> response) {
        assertThat(response.statusCode()).isEqualTo(200);
        return new String(response.body(), StandardCharsets.UTF_8);
    }
}
