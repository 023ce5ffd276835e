package io.providermirror.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

final class FakeModuleRegistryTest {

    @RegisterExtension
    final FakeOriginExtension extension = new FakeOriginExtension();

    private static final Map<String, String> FILES =
            Map.of("main.tf", "output \"v\" { value = 1 }\n", "sub/dir/x.tf", "# x\n");

    @Test
    void discoveryVersionsAndA204DownloadAreServedAsTheProtocolSays() throws Exception {
        FakeOrigin origin = extension.origin();
        FakeModuleRegistry registry = FakeModuleRegistry.of(origin);
        TrustingClient client = new TrustingClient(origin.caCertificate());
        registry.publish("corp", "net", "aws", "1.0.0", "git::https://localhost:1/net.git//sub/dir?ref=v1.0.0");
        registry.publish("corp", "net", "aws", "1.1.0", "../../archives/net-1.1.0.tar.gz");

        HttpResponse<byte[]> discovery = client.get(origin.discoveryUrl().resolve("/.well-known/terraform.json"));
        HttpResponse<byte[]> versions = client.get(origin.discoveryUrl().resolve("/v1/modules/corp/net/aws/versions"));
        HttpResponse<byte[]> first =
                client.get(origin.discoveryUrl().resolve("/v1/modules/corp/net/aws/1.0.0/download"));
        HttpResponse<byte[]> second =
                client.get(origin.discoveryUrl().resolve("/v1/modules/corp/net/aws/1.1.0/download"));

        assertThat(text(discovery)).contains("\"modules.v1\":\"/v1/modules/\"");
        assertThat(text(versions))
                .isEqualTo("{\"modules\":[{\"versions\":[{\"version\":\"1.0.0\"},{\"version\":\"1.1.0\"}]}]}");
        assertThat(first.statusCode()).isEqualTo(204);
        assertThat(first.headers().firstValue("X-Terraform-Get"))
                .hasValue("git::https://localhost:1/net.git//sub/dir?ref=v1.0.0");
        assertThat(second.headers().firstValue("X-Terraform-Get")).hasValue("../../archives/net-1.1.0.tar.gz");
        assertThat(registry.registryRequests()).isEqualTo(3);
        assertThat(registry.originRequests()).isEqualTo(4);
    }

    @Test
    void archivesAreServedWithTheGivenFilesAndCounted() throws Exception {
        FakeOrigin origin = extension.origin();
        FakeModuleRegistry registry = FakeModuleRegistry.of(origin);
        TrustingClient client = new TrustingClient(origin.caCertificate());
        URI tarGz = registry.serveArchive("/archives/net.tar.gz", ModuleArchives.tarGz(FILES));
        URI zip = registry.serveArchive("/archives/net.zip", ModuleArchives.zip(FILES));

        assertThat(registry.archiveDownloads("/archives/net.tar.gz")).isZero();
        byte[] tarBytes = client.get(tarGz).body();
        byte[] zipBytes = client.get(zip).body();

        assertThat(tarGz.toString()).startsWith("https://127.0.0.1:").endsWith("/archives/net.tar.gz");
        assertThat(untar(tarBytes)).isEqualTo(new java.util.TreeMap<>(FILES));
        assertThat(unzip(zipBytes)).isEqualTo(new java.util.TreeMap<>(FILES));
        assertThat(ModuleArchives.tarGz(FILES)).isEqualTo(tarBytes);
        assertThat(registry.archiveDownloads("/archives/net.tar.gz")).isEqualTo(1);
        assertThat(registry.archiveDownloads("/archives/net.zip")).isEqualTo(1);
    }

    private static String text(HttpResponse<byte[]> response) {
        assertThat(response.statusCode()).isBetween(200, 299);
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    static Map<String, String> untar(byte[] tarGz) throws Exception {
        Map<String, String> files = new LinkedHashMap<>();
        try (TarArchiveInputStream tar =
                new TarArchiveInputStream(new GZIPInputStream(new ByteArrayInputStream(tarGz)))) {
            for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
                files.put(entry.getName(), new String(tar.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return files;
    }

    private static Map<String, String> unzip(byte[] zip) throws Exception {
        Map<String, String> files = new LinkedHashMap<>();
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
            for (var entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                files.put(entry.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return files;
    }
}
