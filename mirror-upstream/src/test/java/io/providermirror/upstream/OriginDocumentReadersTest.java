package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Every reader of an origin's documents reads through {@link OriginJson}: a document whose keys collide ignoring
 * case is refused with a message naming what it is and the keys, and a field spelt otherwise than the protocol's
 * is read as the CLI reads it.
 */
final class OriginDocumentReadersTest {

    private static final ProviderAddress ADDRESS = new ProviderAddress("example.test", "acme", "demo");
    private static final ProviderVersion VERSION =
            ProviderVersion.parse("1.0.0").orElseThrow();
    private static final Platform LINUX = new Platform("linux", "amd64");
    private static final URI AT = URI.create("https://example.test/v1/providers/acme/demo/1.0.0/download/linux/amd64");
    private static final String SHA = "a".repeat(64);

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String download(String extra) {
        return "{\"os\":\"linux\",\"arch\":\"amd64\",\"filename\":\"terraform-provider-demo_1.0.0_linux_amd64.zip\","
                + "\"download_url\":\"/a.zip\",\"shasums_url\":\"/SHA256SUMS\",\"shasums_signature_url\":\"/s.sig\","
                + "\"shasum\":\"" + SHA + "\",\"signing_keys\":{\"gpg_public_keys\":[{\"ascii_armor\":\"K\"}]}" + extra
                + "}";
    }

    @Test
    void aDownloadDocumentWithUpperCaseTwinsIsRefusedNamingProviderVersionPlatformAndKey() {
        String what = "the download document of " + ADDRESS + " " + VERSION + " " + LINUX;
        for (String key : new String[] {"DOWNLOAD_URL", "SHASUMS_URL", "SHASUMS_SIGNATURE_URL", "SHASUM"}) {
            assertThatThrownBy(() -> DownloadDocument.parse(
                            LINUX, AT, utf8(download(",\"" + key + "\":\"https://evil.test/x\"")), what))
                    .isInstanceOf(OriginException.class)
                    .hasMessageStartingWith(what)
                    .hasMessageContaining("\"" + key + "\"")
                    .hasMessageContaining("differ only in case");
        }
        assertThatThrownBy(() -> DownloadDocument.parse(
                        LINUX, AT, utf8(download(",\"SIGNING_KEYS\":{\"gpg_public_keys\":[]}")), what))
                .hasMessageContaining("\"signing_keys\" and \"SIGNING_KEYS\"");
    }

    @Test
    void aDownloadDocumentIsReadAsTheCliReadsItAndMustEchoItsPlatform() {
        String spelt = download("")
                .replace("\"download_url\"", "\"Download_Url\"")
                .replace("\"ascii_armor\"", "\"ASCII_ARMOR\"");
        DownloadDocument document = DownloadDocument.parse(LINUX, AT, utf8(spelt), "d");
        assertThat(document.downloadUrl()).isEqualTo(URI.create("https://example.test/a.zip"));
        assertThat(document.signingKeys()).containsExactly("K");

        assertThatThrownBy(() -> DownloadDocument.parse(
                        LINUX, AT, utf8(download("").replace("\"amd64\"", "\"arm64\"")), "the document"))
                .hasMessageContaining("'arch'")
                .hasMessageContaining("linux_amd64");
    }

    @Test
    void versionListsAreRefusedWhenTheirKeysCollide() {
        assertThatThrownBy(() -> VersionList.parse(
                        ADDRESS,
                        utf8("{\"versions\":[{\"version\":\"1.0.0\",\"platforms\":[],\"Platforms\":[]}]}"),
                        "origin.test"))
                .hasMessageContaining("the version list of " + ADDRESS)
                .hasMessageContaining("\"platforms\" and \"Platforms\"");
        VersionList read = VersionList.parse(
                ADDRESS,
                utf8("{\"Versions\":[{\"VERSION\":\"1.0.0\",\"Protocols\":[\"6.0\"],"
                        + "\"platforms\":[{\"OS\":\"linux\",\"Arch\":\"amd64\"}]}]}"),
                "origin.test");
        assertThat(read.find(VERSION).orElseThrow().protocols()).containsExactly("6.0");
        assertThat(read.find(VERSION).orElseThrow().platforms()).containsExactly(LINUX);
    }

    @Test
    void aParentMirrorsIndexAndVersionDocumentAreRefusedWhenTheirKeysCollide() {
        assertThatThrownBy(() -> VersionList.fromMirrorIndex(
                        ADDRESS, utf8("{\"versions\":{\"1.0.0\":{}},\"VERSIONS\":{\"6.6.6\":{}}}"), "parent.test"))
                .hasMessageContaining("network mirror parent.test")
                .hasMessageContaining("\"versions\" and \"VERSIONS\"");
        ReleaseEvidence.ParentDocument twins = new ReleaseEvidence.ParentDocument(
                URI.create("https://parent.test/example.test/acme/demo/1.0.0.json"),
                utf8("{\"archives\":{\"linux_amd64\":{\"url\":\"a.zip\",\"URL\":\"https://evil.test/a.zip\","
                        + "\"hashes\":[\"zh:" + SHA + "\"]}}}"));
        assertThatThrownBy(() -> ParentMirrorClient.release(ADDRESS, VERSION, twins))
                .hasMessageContaining("version 1.0.0 of " + ADDRESS)
                .hasMessageContaining("\"url\" and \"URL\" in \"archives.linux_amd64\"");
    }

    @Test
    void discoveryIsRefusedWhenItsKeysCollide() {
        OriginHttpClient.Document document = new OriginHttpClient.Document(
                URI.create("https://example.test/.well-known/terraform.json"),
                200,
                "application/json",
                utf8("{\"providers.v1\":\"/v1/providers/\",\"PROVIDERS.V1\":\"https://evil.test/\"}"));
        assertThatThrownBy(() -> ServiceDiscovery.parseProvidersBase("example.test", document))
                .hasMessageContaining("service discovery for example.test")
                .hasMessageContaining("\"providers.v1\" and \"PROVIDERS.V1\"");
    }

    @Test
    void moduleVersionListsAreRefusedWhenTheirKeysCollide() {
        assertThatThrownBy(() -> ModuleRegistryClient.parseVersions(
                        utf8("{\"modules\":[{\"versions\":[{\"version\":\"1.0.0\",\"Version\":\"6.6.6\"}]}]}"),
                        "the version list of module example.test/acme/hello/null"))
                .hasMessageContaining("the version list of module example.test/acme/hello/null")
                .hasMessageContaining("\"version\" and \"Version\"");
        assertThat(ModuleRegistryClient.parseVersions(
                                utf8("{\"Modules\":[{\"VERSIONS\":[{\"Version\":\"1.0.0\"}]}]}"), "m")
                        .versions())
                .containsExactly(VERSION);
    }
}
