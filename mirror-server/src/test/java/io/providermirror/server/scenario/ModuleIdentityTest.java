package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.testkit.ModuleArchives;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One module version has one identity on the mirror, however it is spelled and whatever its origin does later: every
 * spelling of its address gets one policy decision and one pin, versions that differ only in build metadata are one
 * version, content that differs from the pin is refused, and a signed archive URL opens that version only.
 */
final class ModuleIdentityTest {

    private static final String TOKEN = "module-identity-token";

    @TempDir
    Path tmp;

    @RegisterExtension
    final ModuleRegistryExtension modules = new ModuleRegistryExtension();

    private MirrorFixture mirror;

    private MirrorFixture.Builder builder() {
        return MirrorFixture.builder(tmp.resolve("cache"), modules.origin()).set("cache.indexTtl", "15m");
    }

    private static String path(String module, String rest) {
        return "/registry/" + MirrorFixture.HOST + "/modules.v1/" + module + "/" + rest;
    }

    private static byte[] archive(String text) {
        return ModuleArchives.tarGz(Map.of("main.tf", "output \"v\" {\n  value = \"" + text + "\"\n}\n"));
    }

    /** Publishes one module version under every spelling given, as a registry comparing names ignoring case does. */
    private void publish(String version, String archivePath, String... spellings) {
        for (String spelling : spellings) {
            String[] parts = spelling.split("/");
            modules.registry().publish(parts[0], parts[1], parts[2], version, archivePath);
        }
    }

    /** The archive a download answer names, fetched as the CLI would (signed query kept, archive= taken off). */
    private HttpResponse<byte[]> followDownload(HttpResponse<byte[]> download) throws Exception {
        assertThat(download.statusCode()).as("the download answer").isEqualTo(204);
        String location = download.headers().firstValue("X-Terraform-Get").orElseThrow();
        String[] parts = location.split("\\?", 2);
        String query = parts.length < 2 ? "" : parts[1].replaceFirst("archive=[^&]*&?", "");
        return mirror.get(URI.create(parts[0]).getRawPath() + (query.isEmpty() ? "" : "?" + query));
    }

    private String metrics() throws Exception {
        return new String(mirror.get("/metrics").body(), StandardCharsets.UTF_8);
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    private void evict(String namespace, String name, String system, String version) throws Exception {
        ModuleAddress address = new ModuleAddress(MirrorFixture.HOST, namespace, name, system);
        mirror.mirror.core().blobs().remove(CacheLayout.moduleArchive(address, new ProviderVersion(version), "tar.gz"));
    }

    @Test
    void anotherSpellingOfAPinnedModuleGetsItsPinNotWhatItsSourceHasNow() throws Exception {
        byte[] pinned = archive("pinned");
        modules.registry().serveArchive("/archives/arch.tar.gz", pinned);
        publish("1.0.0", "/archives/arch.tar.gz", "acme/arch/x", "ACME/arch/x", "Acme/Arch/x");
        mirror = modules.start(builder());
        assertThat(followDownload(mirror.get(path("acme/arch/x", "1.0.0/download")))
                        .body())
                .isEqualTo(pinned);

        // The source moves: the same URL now serves other bytes.
        modules.registry().serveArchive("/archives/arch.tar.gz", archive("moved"));

        for (String spelling : List.of("ACME/arch/x", "Acme/Arch/x")) {
            HttpResponse<byte[]> download = mirror.get(path(spelling, "1.0.0/download"));
            assertThat(download.headers().firstValue("X-Cache"))
                    .as("%s is answered from the pin of acme/arch/x", spelling)
                    .contains("HIT");
            assertThat(followDownload(download).body()).as(spelling).isEqualTo(pinned);
        }
        assertThat(modules.registry().archiveDownloads("/archives/arch.tar.gz")).isEqualTo(1);

        // Evicted, the archive is fetched again through any spelling and checked against the one pin.
        evict("acme", "arch", "x", "1.0.0");
        HttpResponse<byte[]> refetched = followDownload(mirror.get(path("ACME/arch/x", "1.0.0/download")));
        assertThat(refetched.statusCode()).isEqualTo(502);
        assertThat(MirrorFixture.error(refetched)).contains("example.test/acme/arch/x 1.0.0 changed at its source");
    }

    @Test
    void aDenyRuleRefusesEverySpellingOfTheModulesItNamesAndTheOriginIsNeverAsked() throws Exception {
        modules.registry().serveArchive("/archives/blocked.tar.gz", archive("blocked"));
        publish("1.0.0", "/archives/blocked.tar.gz", "blocked/mod/x", "Blocked/mod/x", "BLOCKED/Mod/x");
        publish("1.0.0", "/archives/blocked.tar.gz", "other/mod/x", "Other/mod/x");
        mirror = modules.start(builder()
                .set(
                        "policy.modules.deny",
                        List.of(
                                Map.of("module", "example.test/blocked/*/*"),
                                Map.of("module", "example.test/OTHER/*/*"))));
        int before = modules.registry().registryRequests();

        for (String spelling : List.of("blocked/mod/x", "Blocked/mod/x", "BLOCKED/Mod/x", "Other/mod/x")) {
            for (String rest : List.of("versions", "1.0.0/download", "1.0.0/module.tar.gz")) {
                HttpResponse<byte[]> refused = mirror.get(path(spelling, rest));
                assertThat(refused.statusCode()).as(spelling + " " + rest).isEqualTo(404);
                assertThat(MirrorFixture.error(refused))
                        .as(spelling + " " + rest)
                        .contains("policy.modules.deny[");
            }
        }
        assertThat(modules.registry().registryRequests()).isEqualTo(before);
        assertThat(modules.registry().archiveDownloads("/archives/blocked.tar.gz"))
                .isZero();
    }

    @Test
    void aVersionListedBesideItsBuildMetadataTwinIsListedOnceAndEitherSpellingGetsThePinnedContent() throws Exception {
        byte[] pinned = archive("1.0.0");
        modules.registry().serveArchive("/archives/twin.tar.gz", pinned);
        modules.registry().serveArchive("/archives/evil.tar.gz", archive("evil"));
        // The twin comes first in the origin's list.
        modules.registry().publish("corp", "twin", "x", "1.0.0+evil", "/archives/evil.tar.gz");
        modules.registry().publish("corp", "twin", "x", "1.0.0", "/archives/twin.tar.gz");
        modules.registry().publish("corp", "twin", "x", "2.0.0+build.7", "/archives/twin.tar.gz");
        mirror = modules.start(builder());
        assertThat(followDownload(mirror.get(path("corp/twin/x", "1.0.0/download")))
                        .body())
                .isEqualTo(pinned);

        assertThat(new String(mirror.get(path("corp/twin/x", "versions")).body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"modules\":[{\"versions\":[{\"version\":\"1.0.0\"},{\"version\":\"2.0.0+build.7\"}]}]}");
        assertThat(metrics())
                .containsPattern(
                        "mirror_verification_failures_total\\{host=\"example.test\",reason=\"module_version_twin\"} 1.0");

        HttpResponse<byte[]> twin = mirror.get(path("corp/twin/x", "1.0.0+evil/download"));
        assertThat(twin.headers().firstValue("X-Cache"))
                .as("answered from the pin of 1.0.0")
                .contains("HIT");
        assertThat(followDownload(twin).body()).isEqualTo(pinned);
        assertThat(modules.registry().archiveDownloads("/archives/evil.tar.gz")).isZero();

        // A version the origin lists only with build metadata is fetched under the spelling the origin knows.
        assertThat(followDownload(mirror.get(path("corp/twin/x", "2.0.0+build.7/download")))
                        .body())
                .isEqualTo(pinned);
    }

    @Test
    void anArchiveModuleWhoseContentChangedAtItsSourceIsRefusedCountedAndKeepsItsPin() throws Exception {
        byte[] first = archive("first");
        modules.registry().serveArchive("/archives/net.tar.gz", first);
        modules.registry().publish("corp", "net", "aws", "1.0.0", "/archives/net.tar.gz");
        mirror = modules.start(builder());
        assertThat(followDownload(mirror.get(path("corp/net/aws", "1.0.0/download")))
                        .body())
                .isEqualTo(first);

        modules.registry().serveArchive("/archives/net.tar.gz", archive("replaced"));
        evict("corp", "net", "aws", "1.0.0");

        HttpResponse<byte[]> replaced = followDownload(mirror.get(path("corp/net/aws", "1.0.0/download")));
        assertThat(replaced.statusCode()).isEqualTo(502);
        assertThat(MirrorFixture.error(replaced))
                .contains("pinned sha256 " + sha256(first))
                .contains("modules accept example.test/corp/net/aws 1.0.0");
        assertThat(metrics())
                .containsPattern(
                        "mirror_verification_failures_total\\{host=\"example.test\",reason=\"module_pin\"} 1.0");
        ModuleAddress address = new ModuleAddress(MirrorFixture.HOST, "corp", "net", "aws");
        assertThat(mirror.mirror
                        .core()
                        .modules()
                        .pin(address, new ProviderVersion("1.0.0"))
                        .orElseThrow()
                        .sha256())
                .isEqualTo(sha256(first));
        assertThat(followDownload(mirror.get(path("corp/net/aws", "1.0.0/download")))
                        .statusCode())
                .as("still refused: nothing of the new content was kept")
                .isEqualTo(502);
    }

    @Test
    void anArchiveUrlSignedForOneVersionOpensNoOtherVersionOfTheModule() throws Exception {
        modules.registry().serveArchive("/archives/a.tar.gz", archive("a"));
        modules.registry().publish("corp", "a", "aws", "1.0.0", "/archives/a.tar.gz");
        modules.registry().publish("corp", "a", "aws", "2.0.0", "/archives/a.tar.gz");
        mirror = modules.start(builder().set("auth.tokens", List.of(MirrorAuth.hash(TOKEN))));
        HttpResponse<byte[]> download =
                mirror.send(HttpRequest.newBuilder(mirror.url(path("corp/a/aws", "1.0.0/download")))
                        .header("Authorization", "Bearer " + TOKEN)
                        .build());
        assertThat(download.statusCode()).as("the download answer").isEqualTo(204);
        String location = download.headers().firstValue("X-Terraform-Get").orElseThrow();
        String query = location.split("\\?", 2)[1].replaceFirst("archive=[^&]*&?", "");
        assertThat(mirror.get(path("corp/a/aws", "1.0.0/module.tar.gz") + "?" + query)
                        .statusCode())
                .isEqualTo(200);

        HttpResponse<byte[]> other = mirror.get(path("corp/a/aws", "2.0.0/module.tar.gz") + "?" + query);
        assertThat(other.statusCode()).isEqualTo(403);
        assertThat(MirrorFixture.error(other)).contains("signature does not match");
    }
}
