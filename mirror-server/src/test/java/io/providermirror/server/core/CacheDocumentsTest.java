package io.providermirror.server.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.cache.FileDocumentStore;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.ListedVersion;
import io.providermirror.upstream.RegistryService;
import io.providermirror.upstream.ReleaseEvidence;
import io.providermirror.upstream.VersionList;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class CacheDocumentsTest {

    private static final ProviderAddress ADDRESS = ProviderAddress.parse("registry.terraform.io/hashicorp/null");
    private static final ProviderVersion VERSION =
            ProviderVersion.parse("3.2.1").orElseThrow();

    @TempDir
    Path root;

    private FileDocumentStore store;
    private CacheDocuments documents;

    @BeforeEach
    void open() throws IOException {
        store = new FileDocumentStore(root, Clock.systemUTC());
        documents = new CacheDocuments(store);
    }

    @Test
    void theWarmUpFormatsTheReleaseDocumentAsItIsStoredAndStoresNothing() throws IOException {
        ReleaseEvidence evidence = new ReleaseEvidence(
                List.of(new ReleaseEvidence.Download(
                        "linux_amd64",
                        URI.create("https://example.test/download"),
                        "{}".getBytes(StandardCharsets.UTF_8))),
                List.of(new ReleaseEvidence.Checksums(
                        URI.create("https://example.test/SHA256SUMS"),
                        "sums".getBytes(StandardCharsets.UTF_8),
                        URI.create("https://example.test/SHA256SUMS.sig"),
                        new byte[] {1, 2, 3})));

        byte[] formatted = CacheDocuments.warmUp(evidence, Map.of(Platform.parse("linux_amd64"), "h1:abc="));

        try (var stored = Files.walk(root)) {
            assertThat(stored.filter(Files::isRegularFile)).as("nothing stored").isEmpty();
        }
        documents.writeReleaseEvidence(ADDRESS, VERSION, evidence);
        assertThat(formatted)
                .as("the same bytes a fill stores")
                .isEqualTo(store.read(CacheLayout.release(ADDRESS, VERSION))
                        .orElseThrow()
                        .content());
    }

    @Test
    void aVersionListIsReadBackWithEachVersionInItsOriginsSpellingAndItsPlatforms() throws IOException {
        ProviderVersion v = ProviderVersion.parse("1.0").orElseThrow();
        documents.writeVersionList(new VersionList(
                ADDRESS,
                Map.of(
                        v,
                        new ListedVersion(
                                v, "1.0", List.of(Platform.parse("linux_amd64"), Platform.parse("darwin_arm64"))))));

        VersionList read = documents.versionList(ADDRESS).orElseThrow().value();

        assertThat(read.find(v).orElseThrow().originSpelling()).isEqualTo("1.0");
        assertThat(read.find(v).orElseThrow().platforms())
                .containsExactlyInAnyOrder(Platform.parse("linux_amd64"), Platform.parse("darwin_arm64"));
        assertThat(Files.readString(root.resolve("metadata/registry.terraform.io/hashicorp/null/versions.json")))
                .contains("\"version\":\"1.0\"");
    }

    @Test
    void hashesAreKeptByPlatformInHashesJson() throws IOException {
        documents.writePackageHashes(ADDRESS, VERSION, Map.of(Platform.parse("linux_amd64"), "h1:abc="));

        assertThat(documents.packageHashes(ADDRESS, VERSION))
                .containsExactly(Map.entry(Platform.parse("linux_amd64"), "h1:abc="));
        assertThat(Files.readString(root.resolve("metadata/registry.terraform.io/hashicorp/null/3.2.1/hashes.json")))
                .isEqualTo("{\"linux_amd64\":\"h1:abc=\"}");
        assertThat(documents.packageHashes(
                        ADDRESS, ProviderVersion.parse("9.9.9").orElseThrow()))
                .isEmpty();
    }

    @Test
    void theDiscoveredBaseUrlsAreKeptByService() throws IOException {
        documents.writeDiscovery(
                "registry.terraform.io",
                Map.of(
                        RegistryService.PROVIDERS, URI.create("https://registry.terraform.io/v1/providers/"),
                        RegistryService.MODULES, URI.create("https://registry.terraform.io/v1/modules/")));

        assertThat(documents.discovery("registry.terraform.io"))
                .containsOnly(
                        Map.entry(RegistryService.PROVIDERS, URI.create("https://registry.terraform.io/v1/providers/")),
                        Map.entry(RegistryService.MODULES, URI.create("https://registry.terraform.io/v1/modules/")));
        assertThat(Files.readString(root.resolve("metadata/registry.terraform.io/discovery.json")))
                .isEqualTo("{\"modules.v1\":\"https://registry.terraform.io/v1/modules/\","
                        + "\"providers.v1\":\"https://registry.terraform.io/v1/providers/\"}");
        assertThat(documents.discovery("example.test")).isEmpty();
    }

    @Test
    void aDiscoveryResultKeptAsPlainTextIsTheProviderRegistryUrl() throws IOException {
        store.write(
                CacheLayout.discovery("registry.terraform.io"),
                "https://registry.terraform.io/v1/providers/".getBytes(StandardCharsets.UTF_8));

        assertThat(documents.discovery("registry.terraform.io"))
                .containsOnly(Map.entry(
                        RegistryService.PROVIDERS, URI.create("https://registry.terraform.io/v1/providers/")));
    }

    @Test
    void unreadableDocumentsFailWithAMessageNamingWhatTheyHold() throws IOException {
        store.write(CacheLayout.versions(ADDRESS), "{\"nope\":1}".getBytes(StandardCharsets.UTF_8));
        store.write(CacheLayout.packageHashes(ADDRESS, VERSION), "[1,2]".getBytes(StandardCharsets.UTF_8));
        store.write(CacheLayout.release(ADDRESS, VERSION), "not json".getBytes(StandardCharsets.UTF_8));

        assertThatThrownBy(() -> documents.versionList(ADDRESS))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("the cached version list of registry.terraform.io/hashicorp/null");
        assertThatThrownBy(() -> documents.packageHashes(ADDRESS, VERSION))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("h1 hashes of registry.terraform.io/hashicorp/null 3.2.1");
        assertThatThrownBy(() -> documents.releaseEvidence(ADDRESS, VERSION))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("the cached release of registry.terraform.io/hashicorp/null 3.2.1");
    }

    @Test
    void documentsWhoseKeysDifferOnlyInCaseAreRefusedAsABundleMightBringThem() throws IOException {
        store.write(
                CacheLayout.versions(ADDRESS),
                "{\"versions\":[],\"Versions\":[{\"version\":\"6.6.6\"}]}".getBytes(StandardCharsets.UTF_8));
        store.write(
                CacheLayout.packageHashes(ADDRESS, VERSION),
                "{\"linux_amd64\":\"h1:a=\",\"LINUX_AMD64\":\"h1:b=\"}".getBytes(StandardCharsets.UTF_8));
        store.write(
                CacheLayout.release(ADDRESS, VERSION),
                "{\"downloads\":[],\"checksums\":[],\"Downloads\":[]}".getBytes(StandardCharsets.UTF_8));

        assertThatThrownBy(() -> documents.versionList(ADDRESS))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("\"versions\" and \"Versions\"");
        assertThatThrownBy(() -> documents.packageHashes(ADDRESS, VERSION))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("\"linux_amd64\" and \"LINUX_AMD64\"");
        assertThatThrownBy(() -> documents.releaseEvidence(ADDRESS, VERSION))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("\"downloads\" and \"Downloads\"");
    }
}
