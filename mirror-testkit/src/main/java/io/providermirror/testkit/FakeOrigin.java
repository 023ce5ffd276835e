package io.providermirror.testkit;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * An origin registry for tests, over HTTPS on 127.0.0.1 with its own CA: discovery, version lists, download
 * documents with relative URLs, and signed SHA256SUMS, for any releases a test publishes. A release can be
 * published broken in the ways that matter (tampered archive, wrong signing key, SHA256SUMS that disagree).
 */
public final class FakeOrigin implements AutoCloseable {

    /** How a release is broken, if at all. */
    public enum Tamper {
        /** A correct, signed release. */
        NONE,
        /** The archive served differs from the one whose hash is signed. */
        ARCHIVE_BYTES,
        /** SHA256SUMS is signed by a key the origin does not list. */
        WRONG_SIGNING_KEY,
        /** The download document announces a hash that SHA256SUMS does not list. */
        SHASUM_MISMATCH,
        /** The origin lists no signing keys, as OpenTofu's registry does for some providers. */
        UNSIGNED
    }

    /** A published release: its archives, by platform, and the paths they are served at. */
    public record Release(
            String namespace, String type, String version, Map<String, byte[]> archives, byte[] sha256Sums) {
        /** The path the origin serves a platform's archive at. */
        public String archivePath(String platform) {
            return "/files/" + namespace + "/" + type + "/" + version + "/" + fileName(platform);
        }

        /** The origin's file name of a platform's archive. */
        public String fileName(String platform) {
            return "terraform-provider-" + type + "_" + version + "_" + platform + ".zip";
        }

        /** Lowercase hex sha256 of a platform's (genuine) archive. */
        public String sha256(String platform) {
            return hex(archives.get(platform));
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final WireMockServer server;
    private final TestCertificates certificates;
    private final TestPgpKey key;
    private final TestPgpKey otherKey;
    private final Map<String, List<Release>> releasesByProvider = new LinkedHashMap<>();
    private final DynamicResponses dynamic;

    private FakeOrigin(
            WireMockServer server,
            DynamicResponses dynamic,
            TestCertificates certificates,
            TestPgpKey key,
            TestPgpKey otherKey) {
        this.server = server;
        this.dynamic = dynamic;
        this.certificates = certificates;
        this.key = key;
        this.otherKey = otherKey;
    }

    /** Starts an origin whose TLS files are written to {@code directory}. */
    public static FakeOrigin start(Path directory) {
        return start(TestCertificates.create(directory, "origin"));
    }

    /** Starts an origin presenting {@code certificates}: a second host that clients trust as they trust the first. */
    public static FakeOrigin start(TestCertificates certificates) {
        DynamicResponses dynamic = new DynamicResponses();
        WireMockServer server = new WireMockServer(WireMockConfiguration.options()
                .bindAddress("127.0.0.1")
                .httpDisabled(true)
                .dynamicHttpsPort()
                .keystorePath(certificates.keyStore().toString())
                .keystorePassword(certificates.password())
                .keyManagerPassword(certificates.password())
                .keystoreType("PKCS12")
                .gzipDisabled(true)
                .containerThreads(40)
                .jettyAcceptors(2)
                .extensions(dynamic));
        server.start();
        FakeOrigin origin = new FakeOrigin(
                server,
                dynamic,
                certificates,
                TestPgpKey.generateWithSigningSubkey("Fake Origin <security@example.test>"),
                TestPgpKey.generate("Somebody Else <else@example.test>"));
        origin.stubDiscovery();
        return origin;
    }

    private void stubDiscovery() {
        server.stubFor(get(urlEqualTo("/.well-known/terraform.json"))
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"providers.v1\":\"/v1/providers/\",\"modules.v1\":\"/v1/modules/\"}")));
    }

    /**
     * Answers requests that {@code request} matches with what {@code handler} computes from each, below the stubs
     * of fixed answers ({@code priority} as WireMock's: a larger number yields to a smaller one).
     */
    public void answerDynamically(
            com.github.tomakehurst.wiremock.client.MappingBuilder request,
            int priority,
            java.util.function.Function<
                            com.github.tomakehurst.wiremock.http.Request,
                            com.github.tomakehurst.wiremock.http.ResponseDefinition>
                    handler) {
        server.stubFor(request.atPriority(priority)
                .willReturn(aResponse()
                        .withTransformers(DynamicResponses.NAME)
                        .withTransformerParameter(DynamicResponses.HANDLER, dynamic.register(handler))));
    }

    /** Where the origin's discovery document is served (its base URL). */
    public URI discoveryUrl() {
        return URI.create("https://127.0.0.1:" + server.httpsPort() + "/");
    }

    /** The CA that signed the origin's certificate, for {@code upstream.trustedCertificates}. */
    public Path caCertificate() {
        return certificates.caPem();
    }

    /** The origin's TLS certificates, for other test servers that should look like this origin. */
    public TestCertificates certificates() {
        return certificates;
    }

    /** Serves a release's download document for one platform with its archive at {@code downloadUrl}. */
    public void pointArchiveAt(Release release, String platform, URI downloadUrl) {
        String[] parts = platform.split("_");
        String sums = "/files/" + release.namespace() + "/" + release.type() + "/" + release.version()
                + "/terraform-provider-" + release.type() + "_" + release.version() + "_SHA256SUMS";
        ObjectNode download = JSON.createObjectNode()
                .put("os", parts[0])
                .put("arch", parts[1])
                .put("filename", release.fileName(platform))
                .put("download_url", downloadUrl.toString())
                .put("shasums_url", sums)
                .put("shasums_signature_url", sums + ".sig")
                .put("shasum", release.sha256(platform));
        download.putObject("signing_keys")
                .putArray("gpg_public_keys")
                .addObject()
                .put("key_id", key.signingKeyId())
                .put("ascii_armor", key.armoredPublicKey());
        server.stubFor(get(urlEqualTo("/v1/providers/" + release.namespace() + "/" + release.type() + "/"
                        + release.version() + "/download/" + parts[0] + "/" + parts[1]))
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/json")
                        .withBody(json(download))));
    }

    /** The key the origin signs with. */
    public TestPgpKey signingKey() {
        return key;
    }

    /** The WireMock server, for stubbing failures and counting requests. */
    public WireMockServer wireMock() {
        return server;
    }

    /** Publishes a correct release with small archives. */
    public Release publish(String namespace, String type, String version, String... platforms) {
        return publish(namespace, type, version, Tamper.NONE, 0, platforms);
    }

    /** Publishes a release, optionally broken, with archives of about {@code payloadBytes} each. */
    public Release publish(
            String namespace, String type, String version, Tamper tamper, int payloadBytes, String... platforms) {
        return publish(
                namespace,
                type,
                version,
                tamper,
                payloadBytes,
                key,
                (tamper == Tamper.WRONG_SIGNING_KEY ? otherKey : key)::signDetached,
                platforms);
    }

    /**
     * Publishes a release whose download documents list {@code listed} as the signing key and whose SHA256SUMS
     * carries the signature {@code signature} makes of it (one with chosen dates, say).
     */
    public Release publishSigned(
            String namespace,
            String type,
            String version,
            TestPgpKey listed,
            Function<byte[], byte[]> signature,
            String... platforms) {
        return publish(namespace, type, version, Tamper.NONE, 0, listed, signature, platforms);
    }

    private Release publish(
            String namespace,
            String type,
            String version,
            Tamper tamper,
            int payloadBytes,
            TestPgpKey listed,
            Function<byte[], byte[]> signer,
            String... platforms) {
        Map<String, byte[]> archives = new LinkedHashMap<>();
        StringBuilder sums = new StringBuilder();
        for (String platform : platforms) {
            byte[] zip = ProviderZips.provider(type, version, platform, payloadBytes);
            archives.put(platform, zip);
        }
        Release release = new Release(namespace, type, version, archives, null);
        for (String platform : platforms) {
            sums.append(release.sha256(platform))
                    .append("  ")
                    .append(release.fileName(platform))
                    .append('\n');
        }
        byte[] sumsBytes = sums.toString().getBytes(StandardCharsets.UTF_8);
        release = new Release(namespace, type, version, archives, sumsBytes);
        String base = "/files/" + namespace + "/" + type + "/" + version + "/";
        String sumsName = "terraform-provider-" + type + "_" + version + "_SHA256SUMS";
        server.stubFor(get(urlEqualTo(base + sumsName))
                .willReturn(aResponse().withHeader("Content-Type", "text/plain").withBody(sumsBytes)));
        byte[] signature = signer.apply(sumsBytes);
        server.stubFor(get(urlEqualTo(base + sumsName + ".sig"))
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/octet-stream")
                        .withBody(signature)));
        for (String platform : platforms) {
            String[] parts = platform.split("_");
            byte[] served = tamper == Tamper.ARCHIVE_BYTES ? tampered(archives.get(platform)) : archives.get(platform);
            server.stubFor(get(urlEqualTo(release.archivePath(platform)))
                    .willReturn(aResponse()
                            .withHeader("Content-Type", "application/zip")
                            .withHeader("Content-Length", String.valueOf(served.length))
                            .withBody(served)));
            ObjectNode download = JSON.createObjectNode()
                    .put("os", parts[0])
                    .put("arch", parts[1])
                    .put("filename", release.fileName(platform))
                    // Relative URLs, resolved against this document's URL, as the protocol allows.
                    .put("download_url", base + release.fileName(platform))
                    .put("shasums_url", base + sumsName)
                    .put("shasums_signature_url", "../../../../../../.." + base + sumsName + ".sig")
                    .put("shasum", tamper == Tamper.SHASUM_MISMATCH ? hex(new byte[] {1}) : release.sha256(platform));
            download.putArray("protocols").add("5.0");
            ArrayNode keys = download.putObject("signing_keys").putArray("gpg_public_keys");
            if (tamper != Tamper.UNSIGNED) {
                keys.addObject().put("key_id", listed.signingKeyId()).put("ascii_armor", listed.armoredPublicKey());
            }
            server.stubFor(get(urlEqualTo("/v1/providers/" + namespace + "/" + type + "/" + version + "/download/"
                            + parts[0] + "/" + parts[1]))
                    .willReturn(aResponse()
                            .withHeader("Content-Type", "application/json")
                            .withBody(json(download))));
        }
        String provider = namespace + "/" + type;
        releasesByProvider.computeIfAbsent(provider, p -> new ArrayList<>()).add(release);
        stubVersions(namespace, type);
        return release;
    }

    private void stubVersions(String namespace, String type) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode versions = root.putArray("versions");
        for (Release release : releasesByProvider.get(namespace + "/" + type)) {
            ObjectNode version = versions.addObject().put("version", release.version());
            version.putArray("protocols").add("5.0");
            ArrayNode platforms = version.putArray("platforms");
            for (String platform : release.archives().keySet()) {
                String[] parts = platform.split("_");
                platforms.addObject().put("os", parts[0]).put("arch", parts[1]);
            }
        }
        server.stubFor(get(urlEqualTo("/v1/providers/" + namespace + "/" + type + "/versions"))
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/json")
                        .withBody(json(root))));
    }

    /** The bytes a {@link Tamper#ARCHIVE_BYTES} release serves instead of {@code genuine}: one byte flipped. */
    public static byte[] tampered(byte[] genuine) {
        byte[] served = genuine.clone();
        served[served.length / 2] ^= 0x55;
        return served;
    }

    /**
     * From now on serves a platform's genuine archive slowly: in {@code chunks} pieces over {@code millis},
     * without a {@code Content-Length} (chunked), as a slow origin or a large archive would arrive.
     */
    public void serveSlowly(Release release, String platform, int chunks, int millis) {
        serveSlowly(release, platform, release.archives().get(platform), chunks, millis);
    }

    /** As {@link #serveSlowly}, with one byte of the archive flipped; returns the bytes served. */
    public byte[] serveTamperedSlowly(Release release, String platform, int chunks, int millis) {
        byte[] tampered = tampered(release.archives().get(platform));
        serveSlowly(release, platform, tampered, chunks, millis);
        return tampered;
    }

    private void serveSlowly(Release release, String platform, byte[] body, int chunks, int millis) {
        server.stubFor(get(urlEqualTo(release.archivePath(platform)))
                .willReturn(aResponse().withBody(body).withChunkedDribbleDelay(chunks, millis)));
    }

    /** How many times a platform's archive was downloaded from this origin. */
    public int archiveDownloads(Release release, String platform) {
        return server.countRequestsMatching(getRequestedFor(urlEqualTo(release.archivePath(platform)))
                        .build())
                .getCount();
    }

    /** How many requests reached any path matching {@code regex}. */
    public int requestsMatching(String regex) {
        return server.countRequestsMatching(
                        getRequestedFor(urlPathMatching(regex)).build())
                .getCount();
    }

    /** Lowercase hex sha256. */
    public static String hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String json(Object node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.stop();
    }
}
