package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static io.providermirror.server.scenario.MirrorFixture.error;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.upstream.TrustedCertificates;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The providers.v1 face through the running mirror: the origin's versions and platforms, its download documents
 * with their URLs on the mirror, and its exact SHA256SUMS and signature bytes; policy, the cache and its checks,
 * and the packages it cannot offer.
 */
final class ProviderRegistryFaceTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final MirrorExtension fixture = MirrorExtension.with((builder, directory) -> builder.set(
                    "cache.indexTtl", "15m")
            .set("policy.platforms", List.of("linux_amd64", "darwin_arm64"))
            .set("policy.deny", List.of(Map.of("provider", "example.test/acme/denied", "versions", "= 1.1.0"))));

    /** The face's base path for the fake origin's host. */
    private static String base(String type) {
        return "/registry/example.test/providers.v1/acme/" + type + "/";
    }

    private static HttpResponse<byte[]> get(String path) throws Exception {
        return fixture.mirror().get(path);
    }

    /** What the origin itself serves at {@code path} beneath its providers.v1 base, read with a client trusting it. */
    private static byte[] fromOrigin(URI url) throws Exception {
        HttpClient client = HttpClient.newBuilder()
                .sslContext(TrustedCertificates.sslContext(fixture.origin().caCertificate()))
                .build();
        HttpResponse<byte[]> response =
                client.send(HttpRequest.newBuilder(url).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(response.statusCode()).as(url.toString()).isEqualTo(200);
        return response.body();
    }

    private static URI originDownload(String type, String version, String os, String arch) {
        return fixture.origin()
                .discoveryUrl()
                .resolve("/v1/providers/acme/" + type + "/" + version + "/download/" + os + "/" + arch);
    }

    @Test
    void versionsAreTheOriginsWithTheirProtocolsAndPlatformsAfterPolicy() throws Exception {
        fixture.origin().publish("acme", "listed", "1.0.0", "linux_amd64", "darwin_arm64", "windows_amd64");
        fixture.origin().publish("acme", "listed", "1.1.0", "linux_amd64");

        HttpResponse<byte[]> versions = get(base("listed") + "versions");

        assertThat(versions.statusCode()).isEqualTo(200);
        assertThat(versions.headers().firstValue("content-type")).contains("application/json");
        assertThat(JSON.readTree(versions.body()))
                .as("windows_amd64 is not among policy.platforms")
                .isEqualTo(JSON.readTree("""
                        {"versions":[
                          {"version":"1.0.0","protocols":["5.0"],"platforms":[
                            {"os":"darwin","arch":"arm64"},{"os":"linux","arch":"amd64"}]},
                          {"version":"1.1.0","protocols":["5.0"],"platforms":[{"os":"linux","arch":"amd64"}]}]}
                        """));
        get(fixture.mirror().providerPath("acme", "listed") + "index.json");
        assertThat(fixture.origin().requestsMatching("/v1/providers/acme/listed/versions"))
                .as("index.json and versions share one cached version list")
                .isEqualTo(1);
    }

    @Test
    void versionsLeaveOutWhatThePolicyRefuses() throws Exception {
        fixture.origin().publish("acme", "denied", "1.0.0", "linux_amd64");
        fixture.origin().publish("acme", "denied", "1.1.0", "linux_amd64");

        JsonNode versions = JSON.readTree(get(base("denied") + "versions").body());

        assertThat(versions.findValuesAsText("version")).containsExactly("1.0.0");
        HttpResponse<byte[]> download = get(base("denied") + "1.1.0/download/linux/amd64");
        assertThat(download.statusCode()).isEqualTo(404);
        assertThat(error(download)).contains("policy").contains("1.1.0");
    }

    @Test
    void aDownloadIsTheOriginsDocumentWithItsFilesOnTheMirrorByteForByte() throws Exception {
        FakeOrigin.Release release = fixture.origin()
                .publish("acme", "passed", "2.0.0", FakeOrigin.Tamper.NONE, 20_000, "linux_amd64", "darwin_arm64");
        String path = base("passed") + "2.0.0/download/linux/amd64";

        HttpResponse<byte[]> download = get(path);

        assertThat(download.statusCode()).isEqualTo(200);
        assertThat(download.headers().firstValue("content-type")).contains("application/json");
        ObjectNode served = (ObjectNode) JSON.readTree(download.body());
        ObjectNode origins =
                (ObjectNode) JSON.readTree(fromOrigin(originDownload("passed", "2.0.0", "linux", "amd64")));
        ObjectNode servedRest = served.deepCopy();
        ObjectNode originRest = origins.deepCopy();
        for (String field : List.of("download_url", "shasums_url", "shasums_signature_url")) {
            assertThat(served.get(field).asText())
                    .as(field)
                    .doesNotContain("127.0.0.1")
                    .doesNotStartWith("/");
            servedRest.remove(field);
            originRest.remove(field);
        }
        ObjectNode servedKey = (ObjectNode) servedRest.at("/signing_keys/gpg_public_keys/0");
        assertThat(servedKey.remove("key_id").asText())
                .as("the key's primary key ID, as the protocol names a key (this origin names its signing subkey)")
                .isEqualTo(fixture.origin().signingKey().primaryFingerprint().substring(24));
        ((ObjectNode) originRest.at("/signing_keys/gpg_public_keys/0")).remove("key_id");
        assertThat(servedRest)
                .as("filename, shasum, protocols, os, arch and signing_keys as the origin served them")
                .isEqualTo(originRest);
        assertThat(servedRest.at("/signing_keys/gpg_public_keys/0/ascii_armor").asText())
                .isEqualTo(fixture.origin().signingKey().armoredPublicKey());

        // The URLs are relative to the document's, as the CLI resolves them, and lead to the mirror's files.
        URI document = fixture.mirror().url(path);
        URI sums = document.resolve(served.get("shasums_url").asText());
        URI signature = document.resolve(served.get("shasums_signature_url").asText());
        URI archive = document.resolve(served.get("download_url").asText());
        assertThat(sums.getPath()).isEqualTo(path + "/SHA256SUMS");
        assertThat(signature.getPath()).isEqualTo(path + "/SHA256SUMS.sig");
        assertThat(archive.getPath())
                .isEqualTo(fixture.mirror().providerPath("acme", "passed")
                        + "terraform-provider-passed_2.0.0_linux_amd64.zip");

        URI originDocument = originDownload("passed", "2.0.0", "linux", "amd64");
        byte[] originSums =
                fromOrigin(originDocument.resolve(origins.get("shasums_url").asText()));
        byte[] originSignature = fromOrigin(
                originDocument.resolve(origins.get("shasums_signature_url").asText()));
        HttpResponse<byte[]> servedSums =
                fixture.mirror().send(HttpRequest.newBuilder(sums).build());
        HttpResponse<byte[]> servedSignature =
                fixture.mirror().send(HttpRequest.newBuilder(signature).build());
        assertThat(servedSums.statusCode()).isEqualTo(200);
        assertThat(servedSums.body())
                .as("the origin's SHA256SUMS, byte for byte")
                .isEqualTo(originSums);
        assertThat(servedSignature.statusCode()).isEqualTo(200);
        assertThat(servedSignature.body())
                .as("the origin's signature, byte for byte")
                .isEqualTo(originSignature);
        HttpResponse<byte[]> servedArchive =
                fixture.mirror().send(HttpRequest.newBuilder(archive).build());
        assertThat(servedArchive.statusCode()).isEqualTo(200);
        assertThat(servedArchive.body()).isEqualTo(release.archives().get("linux_amd64"));
        assertThat(FakeOrigin.hex(servedArchive.body()))
                .isEqualTo(served.get("shasum").asText());

        HttpResponse<byte[]> head = fixture.mirror().head(path + "/SHA256SUMS");
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.headers().firstValueAsLong("content-length")).hasValue(originSums.length);
    }

    @Test
    void aDownloadDocumentWithUpperCaseTwinsOfItsKeysIsRefusedAndNothingOfTheAttackersIsHandedOut() throws Exception {
        fixture.origin().publish("acme", "twinned", "1.0.0", "linux_amd64");
        try (FakeOrigin attacker = FakeOrigin.start(fixture.origin().certificates())) {
            attacker.publish("acme", "twinned", "1.0.0", FakeOrigin.Tamper.NONE, 5_000, "linux_amd64");
            CaseTwinnedDownload.serve(fixture.origin(), attacker, "twinned", "1.0.0", "linux_amd64");
            int attackerRequests = attacker.requestsMatching(".*");
            String path = base("twinned") + "1.0.0/download/linux/amd64";

            HttpResponse<byte[]> download = get(path);
            HttpResponse<byte[]> versionDocument = get(fixture.mirror().providerPath("acme", "twinned") + "1.0.0.json");

            assertThat(download.statusCode()).isEqualTo(502);
            assertThat(error(download))
                    .as("refused at fill time, naming provider, version, platform and key")
                    .contains("example.test/acme/twinned 1.0.0 linux_amd64")
                    .contains("\"download_url\" and \"DOWNLOAD_URL\"");
            String attackers = "127.0.0.1:" + attacker.wireMock().httpsPort();
            for (HttpResponse<byte[]> answer : List.of(download, versionDocument, get(path + "/SHA256SUMS"))) {
                assertThat(answer.statusCode()).isEqualTo(502);
                assertThat(new String(answer.body(), StandardCharsets.UTF_8))
                        .doesNotContain(attackers)
                        .doesNotContain(attacker.signingKey().signingKeyId());
            }
            assertThat(attacker.requestsMatching(".*"))
                    .as("the mirror never fetched what the twins name")
                    .isEqualTo(attackerRequests);
        }
    }

    @Test
    void theDownloadDocumentHandedOutHoldsOnlyTheProtocolsKeysWithTheVerifiedValues() throws Exception {
        FakeOrigin.Release release = fixture.origin().publish("acme", "extras", "1.0.0", "linux_amd64");
        String originPath = "/v1/providers/acme/extras/1.0.0/download/linux/amd64";
        ObjectNode document =
                (ObjectNode) JSON.readTree(fromOrigin(originDownload("extras", "1.0.0", "linux", "amd64")));
        // Keys the protocol does not define, the CLI reads (trust_signature) or might one day: none is passed on.
        document.put("trust_signature", "-----BEGIN PGP SIGNATURE-----\nforged\n-----END PGP SIGNATURE-----");
        document.put("download-url", "https://evil.test/x.zip");
        ((ObjectNode) document.at("/signing_keys/gpg_public_keys/0"))
                .put("trust_signature", "forged")
                .put("source", "Evil");
        fixture.origin()
                .wireMock()
                .stubFor(com.github.tomakehurst.wiremock.client.WireMock.get(originPath)
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withHeader("Content-Type", "application/json")
                                .withBody(JSON.writeValueAsBytes(document))));

        HttpResponse<byte[]> download = get(base("extras") + "1.0.0/download/linux/amd64");

        assertThat(download.statusCode()).isEqualTo(200);
        JsonNode served = JSON.readTree(download.body());
        assertThat(served.fieldNames())
                .toIterable()
                .containsExactly(
                        "protocols",
                        "os",
                        "arch",
                        "filename",
                        "download_url",
                        "shasums_url",
                        "shasums_signature_url",
                        "shasum",
                        "signing_keys");
        assertThat(served.get("shasum").asText()).isEqualTo(release.sha256("linux_amd64"));
        assertThat(served.at("/signing_keys/gpg_public_keys/0").fieldNames())
                .toIterable()
                .containsExactly("key_id", "ascii_armor");
        assertThat(new String(download.body(), StandardCharsets.UTF_8))
                .doesNotContain("evil")
                .doesNotContain("forged");
    }

    @Test
    void cachedEvidenceWhoseDownloadDocumentHasCaseTwinsIsNeverHandedOut() throws Exception {
        fixture.origin().publish("acme", "twinnedcache", "1.0.0", "linux_amd64");
        String path = base("twinnedcache") + "1.0.0/download/linux/amd64";
        assertThat(get(fixture.mirror().providerPath("acme", "twinnedcache") + "1.0.0.json")
                        .statusCode())
                .isEqualTo(200);
        // Evidence an earlier version of the mirror stored, or a bundle brought: its document has twins.
        Path evidence =
                fixture.mirror().cacheDirectory.resolve("metadata/example.test/acme/twinnedcache/1.0.0/release.json");
        ObjectNode stored = (ObjectNode) JSON.readTree(evidence.toFile());
        ObjectNode download = (ObjectNode) stored.get("downloads").get(0);
        ObjectNode document =
                (ObjectNode) JSON.readTree(download.get("document").binaryValue());
        document.put("DOWNLOAD_URL", "https://evil.test/x.zip");
        download.put("document", JSON.writeValueAsBytes(document));
        Files.write(evidence, JSON.writeValueAsBytes(stored));

        HttpResponse<byte[]> answer = get(path);

        assertThat(answer.statusCode()).isEqualTo(502);
        assertThat(error(answer)).contains("\"download_url\" and \"DOWNLOAD_URL\"");
        assertThat(new String(answer.body(), StandardCharsets.UTF_8)).doesNotContain("https://evil.test");
    }

    @Test
    void aSecondDownloadAndItsFilesComeFromTheCacheAlsoWithTheOriginDown() throws Exception {
        fixture.origin().publish("acme", "cached", "1.0.0", "linux_amd64", "darwin_arm64");
        String path = base("cached") + "1.0.0/download/linux/amd64";
        byte[] first = get(path).body();
        byte[] sums = get(path + "/SHA256SUMS").body();
        fixture.origin()
                .wireMock()
                .stubFor(any(urlPathMatching("/(v1/providers|files)/acme/cached/.*"))
                        .atPriority(1)
                        .willReturn(aResponse().withStatus(503)));
        int before = fixture.origin().requestsMatching("/(v1/providers|files)/acme/cached/.*");

        assertThat(get(path).body()).isEqualTo(first);
        assertThat(get(path + "/SHA256SUMS").body()).isEqualTo(sums);
        assertThat(get(base("cached") + "1.0.0/download/darwin/arm64").statusCode())
                .as("every platform's evidence was fetched with the version")
                .isEqualTo(200);
        assertThat(get(base("cached") + "versions").statusCode()).isEqualTo(200);
        assertThat(fixture.origin().requestsMatching("/(v1/providers|files)/acme/cached/.*"))
                .isEqualTo(before);
    }

    @Test
    void aDownloadThatFailsForAnotherPlatformsDocumentNamesThePlatformAskedFor() throws Exception {
        fixture.origin().publish("acme", "halfbroken", "1.0.0", "linux_amd64", "darwin_arm64");
        fixture.origin()
                .wireMock()
                .stubFor(com.github.tomakehurst.wiremock.client.WireMock.get(
                                "/v1/providers/acme/halfbroken/1.0.0/download/darwin/arm64")
                        .willReturn(aResponse().withStatus(403)));

        HttpResponse<byte[]> failed = get(base("halfbroken") + "1.0.0/download/linux/amd64");

        assertThat(failed.statusCode()).isEqualTo(502);
        assertThat(error(failed))
                .startsWith("example.test/acme/halfbroken 1.0.0 linux_amd64 cannot be offered until its release is "
                        + "fetched: ")
                .contains("darwin_arm64")
                .doesNotContain("java.", "Exception");
    }

    @Test
    void platformsThatAreNotThereOrNotServedAre404() throws Exception {
        fixture.origin().publish("acme", "someplatforms", "1.0.0", "linux_amd64", "windows_amd64");

        HttpResponse<byte[]> absent = get(base("someplatforms") + "1.0.0/download/darwin/arm64");
        HttpResponse<byte[]> refused = get(base("someplatforms") + "1.0.0/download/windows/amd64");
        HttpResponse<byte[]> refusedSums = get(base("someplatforms") + "1.0.0/download/windows/amd64/SHA256SUMS");

        assertThat(absent.statusCode()).isEqualTo(404);
        assertThat(error(absent))
                .contains("example.test/acme/someplatforms 1.0.0")
                .contains("darwin_arm64");
        assertThat(refused.statusCode()).isEqualTo(404);
        assertThat(error(refused)).contains("policy.platforms");
        assertThat(refusedSums.statusCode()).isEqualTo(404);
    }

    @Test
    void evidenceAlteredInTheCacheIsNeverHandedOut() throws Exception {
        fixture.origin().publish("acme", "altered", "1.0.0", "linux_amd64");
        String path = base("altered") + "1.0.0/download/linux/amd64";
        // The version is verified and in memory; its evidence is read back from the cache for this face.
        assertThat(get(fixture.mirror().providerPath("acme", "altered") + "1.0.0.json")
                        .statusCode())
                .isEqualTo(200);
        Path evidence =
                fixture.mirror().cacheDirectory.resolve("metadata/example.test/acme/altered/1.0.0/release.json");
        ObjectNode stored = (ObjectNode) JSON.readTree(evidence.toFile());
        ObjectNode checksums = (ObjectNode) stored.get("checksums").get(0);
        byte[] sums = checksums.get("sums").binaryValue();
        sums[0] = (byte) (sums[0] == 'a' ? 'b' : 'a');
        checksums.put("sums", sums);
        Files.write(evidence, JSON.writeValueAsBytes(stored));

        HttpResponse<byte[]> download = get(path);
        HttpResponse<byte[]> sumsServed = get(path + "/SHA256SUMS");

        assertThat(download.statusCode()).isEqualTo(502);
        assertThat(error(download)).contains("example.test/acme/altered 1.0.0");
        assertThat(sumsServed.statusCode()).isEqualTo(502);
        assertThat(new String(sumsServed.body(), StandardCharsets.UTF_8)).startsWith("{\"errors\"");
    }

    @Test
    void malformedFacePathsAre400AndNeverReachTheOrigin() throws Exception {
        for (String path : List.of(
                base("x") + "1.0/download/linux/amd64",
                base("x") + "1.0.0/download/linux",
                base("x") + "1.0.0/download/linux/amd64/SHA1SUMS",
                base("x") + "1.0.0/download/linux/amd64/../../../x",
                "/registry/example.test/providers.v1/Acme/x/versions")) {
            HttpResponse<byte[]> response = get(path);
            assertThat(response.statusCode()).as(path).isEqualTo(400);
            assertThat(error(response)).as(path).isNotBlank();
        }
        assertThat(fixture.origin().requestsMatching("/v1/providers/acme/x/.*")).isZero();
    }

    @Test
    void aPackageWithoutAnOriginSignatureIsRefusedNamingTheWayIn(@TempDir Path tmp) throws Exception {
        fixture.origin().publish("acme", "unsigned", "1.0.0", FakeOrigin.Tamper.UNSIGNED, 0, "linux_amd64");
        try (MirrorFixture mirror = MirrorFixture.builder(tmp.resolve("cache"), fixture.origin())
                .set("upstream.hosts.example\\.test.allowUnsigned", true)
                .start()) {
            HttpResponse<byte[]> download = mirror.get(base("unsigned") + "1.0.0/download/linux/amd64");
            HttpResponse<byte[]> sums = mirror.get(base("unsigned") + "1.0.0/download/linux/amd64/SHA256SUMS");

            assertThat(download.statusCode()).isEqualTo(409);
            assertThat(error(download))
                    .contains("example.test/acme/unsigned 1.0.0 linux_amd64")
                    .contains("without a signature")
                    .contains("network mirror protocol");
            assertThat(sums.statusCode()).isEqualTo(409);
            assertThat(mirror.get(mirror.providerPath("acme", "unsigned") + "1.0.0.json")
                            .statusCode())
                    .as("the network mirror protocol still serves it")
                    .isEqualTo(200);
        }
    }

    @Test
    void aHostServedThroughAParentMirrorIsNotOfferedAndTheVersionsSayWhy(@TempDir Path tmp) throws Exception {
        fixture.origin().publish("acme", "parented", "1.0.0", "linux_amd64");
        try (MirrorFixture parent =
                        MirrorFixture.start(tmp.resolve("parent"), fixture.origin(), java.time.Duration.ofMinutes(15));
                MirrorFixture child = MirrorFixture.builder(tmp.resolve("child"), fixture.origin())
                        .set(
                                "upstream.trustedCertificates",
                                parent.mirror.generatedCaFile().orElseThrow().toString())
                        .set(
                                "upstream.hosts",
                                Map.of(
                                        "example.test",
                                        Map.of(
                                                "mirrorUrl",
                                                "https://localhost:" + parent.mirror.port() + "/providers/")))
                        .start()) {
            JsonNode versions =
                    JSON.readTree(child.get(base("parented") + "versions").body());
            HttpResponse<byte[]> download = child.get(base("parented") + "1.0.0/download/linux/amd64");

            assertThat(versions.findValuesAsText("version")).containsExactly("1.0.0");
            assertThat(versions.get("warnings").get(0).asText())
                    .contains("upstream.hosts.example.test.mirrorUrl")
                    .contains("network mirror protocol");
            assertThat(download.statusCode()).isEqualTo(409);
            assertThat(error(download)).contains("without their origin's signature");
        }
    }
}
