package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.upstream.verify.PackageHashes;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A mirror whose source for a host is another network mirror (upstream.hosts.<host>.mirrorUrl): a DMZ
 * instance of this mirror, or a static tree made by {@code terraform providers mirror} that publishes only
 * {@code h1:} hashes. Archives are checked against the hashes the parent publishes.
 */
final class ChainedMirrorTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void aMirrorServesWhatItsParentMirrorServesCheckedAgainstTheParentsHashes() throws Exception {
        try (FakeOrigin origin = FakeOrigin.start(tmp.resolve("origin"));
                MirrorFixture parent = MirrorFixture.start(tmp.resolve("parent"), origin, Duration.ofMinutes(15))) {
            FakeOrigin.Release release = origin.publish(
                    "acme", "chained", "1.2.0", FakeOrigin.Tamper.NONE, 30_000, "linux_amd64", "darwin_arm64");
            String parentBase = "https://localhost:" + parent.mirror.port() + "/providers/";
            try (MirrorFixture child = MirrorFixture.builder(tmp.resolve("child"), origin)
                    .set(
                            "upstream.trustedCertificates",
                            parent.mirror.generatedCaFile().orElseThrow().toString())
                    .set("upstream.hosts", Map.of("example.test", Map.of("mirrorUrl", parentBase)))
                    .start()) {
                String base = child.providerPath("acme", "chained");
                JsonNode index = JSON.readTree(child.get(base + "index.json").body());
                assertThat(index.get("versions").has("1.2.0")).isTrue();
                JsonNode document = JSON.readTree(child.get(base + "1.2.0.json").body());
                assertThat(document.at("/archives/linux_amd64/hashes").toString())
                        .contains("zh:" + release.sha256("linux_amd64"));
                HttpResponse<byte[]> archive = child.get(base + "terraform-provider-chained_1.2.0_linux_amd64.zip");
                assertThat(archive.statusCode()).isEqualTo(200);
                assertThat(archive.body()).isEqualTo(release.archives().get("linux_amd64"));
                assertThat(child.get(base + "terraform-provider-chained_1.2.0_linux_amd64.zip")
                                .body())
                        .as("then from the child's own cache")
                        .isEqualTo(release.archives().get("linux_amd64"));
                // h1: is computed on the committed file once the transfer is over, beside the clients.
                org.awaitility.Awaitility.await()
                        .atMost(Duration.ofSeconds(10))
                        .untilAsserted(() -> assertThat(JSON.readTree(
                                                child.get(base + "1.2.0.json").body())
                                        .at("/archives/linux_amd64/hashes")
                                        .toString())
                                .contains("h1:"));
            }
            assertThat(origin.archiveDownloads(release, "linux_amd64"))
                    .as("the origin served it once, to the parent")
                    .isEqualTo(1);
            assertThat(origin.requestsMatching("/.well-known/terraform.json"))
                    .as("only the parent discovered the origin")
                    .isEqualTo(1);
        }
    }

    @Test
    void aStaticParentThatPublishesOnlyH1HashesIsCheckedByH1() throws Exception {
        try (FakeOrigin tree = FakeOrigin.start(tmp.resolve("tree"))) {
            byte[] genuine = io.providermirror.testkit.ProviderZips.provider("static", "1.0.0", "linux_amd64", 20_000);
            byte[] other = io.providermirror.testkit.ProviderZips.provider("static", "1.0.0", "darwin_arm64", 20_000);
            String h1 = h1(genuine);
            StaticParentMirror parent = new StaticParentMirror(tree);
            publishStatic(parent, "static", genuine, h1);
            publishStatic(parent, "forged", other, h1);
            try (MirrorFixture child = parent.child(tmp.resolve("child"))) {
                String base = child.providerPath("acme", "static");
                assertThat(JSON.readTree(child.get(base + "1.0.0.json").body())
                                .at("/archives/linux_amd64/hashes")
                                .toString())
                        .isEqualTo("[\"" + h1 + "\"]");
                HttpResponse<byte[]> archive = child.get(base + "terraform-provider-static_1.0.0_linux_amd64.zip");
                assertThat(archive.statusCode()).isEqualTo(200);
                assertThat(archive.body()).isEqualTo(genuine);

                String forged =
                        child.providerPath("acme", "forged") + "terraform-provider-forged_1.0.0_linux_amd64.zip";
                try {
                    HttpResponse<byte[]> refused = child.get(forged);
                    assertThat(refused.statusCode()).isEqualTo(502);
                    assertThat(JSON.readTree(refused.body())
                                    .get("errors")
                                    .get(0)
                                    .asText())
                            .contains("does not match the h1: hashes the network mirror lists");
                } catch (IOException aborted) {
                    assertThat(aborted).isNotNull();
                }
                try (Stream<Path> files = Files.walk(child.cacheDirectory.resolve("archives"))) {
                    assertThat(files.filter(p -> p.toString().contains("forged") && Files.isRegularFile(p)))
                            .isEmpty();
                }
            }
        }
    }

    @Test
    void aVersionDocumentFromOutsideTheConfiguredMirrorUrlIsNotTrusted() throws Exception {
        try (FakeOrigin tree = FakeOrigin.start(tmp.resolve("tree"))) {
            byte[] zip = io.providermirror.testkit.ProviderZips.provider("strayed", "1.0.0", "linux_amd64", 5_000);
            String file = "terraform-provider-strayed_1.0.0_linux_amd64.zip";
            String dir = StaticParentMirror.directory("strayed");
            StaticParentMirror parent = new StaticParentMirror(tree);
            parent.json(dir + "index.json", "{\"versions\":{\"1.0.0\":{}}}");
            // The parent's path answers with a redirect out of the mirror's URL, to hashes somebody else wrote.
            parent.answer(
                    dir + "1.0.0.json", aResponse().withStatus(302).withHeader("Location", "/uploads/1.0.0.json"));
            parent.json(
                    "/uploads/1.0.0.json",
                    "{\"archives\":{\"linux_amd64\":{\"url\":\"" + dir + file + "\",\"hashes\":[\"zh:"
                            + FakeOrigin.hex(zip) + "\"]}}}");
            parent.bytes(dir + file, zip);
            try (MirrorFixture child = parent.child(tmp.resolve("child"))) {
                String base = child.providerPath("acme", "strayed");
                HttpResponse<byte[]> document = child.get(base + "1.0.0.json");
                assertThat(document.statusCode())
                        .as(new String(document.body(), StandardCharsets.UTF_8))
                        .isEqualTo(502);
                assertThat(JSON.readTree(document.body()).get("errors").get(0).asText())
                        .contains("example.test/acme/strayed")
                        .contains("not beneath the network mirror");
                assertThat(child.get(base + file).statusCode()).isEqualTo(502);
                assertThat(Files.exists(child.cacheDirectory.resolve("archives/example.test/acme/strayed")))
                        .isFalse();
            }
        }
    }

    @Test
    void aParentVersionDocumentWithoutArchivesIsA502AndIsNotStoredEmptyForGood() throws Exception {
        try (FakeOrigin tree = FakeOrigin.start(tmp.resolve("hollow-tree"))) {
            String dir = StaticParentMirror.directory("hollow");
            StaticParentMirror parent = new StaticParentMirror(tree);
            parent.json(dir + "index.json", "{\"versions\":{\"1.0.0\":{}}}");
            parent.json(dir + "1.0.0.json", "{\"archives\":{}}");
            try (MirrorFixture child = parent.child(tmp.resolve("hollow-child"))) {
                HttpResponse<byte[]> document = child.get(child.providerPath("acme", "hollow") + "1.0.0.json");
                assertThat(document.statusCode())
                        .as(new String(document.body(), StandardCharsets.UTF_8))
                        .isEqualTo(502);
                assertThat(JSON.readTree(document.body()).get("errors").get(0).asText())
                        .contains("example.test/acme/hollow 1.0.0")
                        .contains("no platform package");
                assertThat(child.cacheDirectory.resolve("metadata/example.test/acme/hollow/1.0.0/release.json"))
                        .doesNotExist();
            }
        }
    }

    @Test
    void keysCannotBePinnedThroughAParentMirror() {
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).loadText("""
                upstream:
                  hosts:
                    registry.terraform.io:
                      mirrorUrl: https://dmz.corp/providers/
                      trustedKeys: [34365D9472D7468F]
                """))
                .hasMessageContaining("upstream.hosts.registry.terraform.io.trustedKeys': set with mirrorUrl");
    }

    /** Serves what {@code terraform providers mirror} writes for one provider: index, version document, zip. */
    private static void publishStatic(StaticParentMirror parent, String type, byte[] zip, String h1) {
        String file = "terraform-provider-" + type + "_1.0.0_linux_amd64.zip";
        parent.version(type, file, "\"" + h1 + "\"");
        parent.bytes(StaticParentMirror.directory(type) + file, zip);
    }

    private String h1(byte[] zip) throws IOException {
        Path file = Files.write(tmp.resolve("h1-" + System.nanoTime() + ".zip"), zip);
        return PackageHashes.h1(file);
    }
}
