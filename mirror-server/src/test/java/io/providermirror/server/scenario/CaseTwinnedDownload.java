package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.upstream.TrustedCertificates;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Locale;

/**
 * The attack of a download document whose keys have upper-case twins: {@code origin} answers a package's download
 * document with its genuine keys followed by {@code DOWNLOAD_URL}, {@code SHASUMS_URL},
 * {@code SHASUMS_SIGNATURE_URL}, {@code SHASUM} and {@code SIGNING_KEYS} taken from {@code attacker}'s document of the
 * same package (its URLs made absolute). Go's decoder, the CLI's, reads the twins (the last matching key wins);
 * Jackson, read exactly, the genuine keys.
 */
final class CaseTwinnedDownload {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> TWINNED =
            List.of("download_url", "shasums_url", "shasums_signature_url", "shasum", "signing_keys");

    private CaseTwinnedDownload() {}

    /** Makes {@code origin} answer the twinned document for the package; returns its bytes. */
    static byte[] serve(FakeOrigin origin, FakeOrigin attacker, String type, String version, String platform)
            throws Exception {
        String path = "/v1/providers/acme/" + type + "/" + version + "/download/" + platform.replace('_', '/');
        ObjectNode document = read(origin, path);
        URI attackersUrl = attacker.discoveryUrl().resolve(path);
        ObjectNode attackers = read(attacker, path);
        for (String key : TWINNED) {
            String twin = key.toUpperCase(Locale.ROOT);
            if (key.endsWith("_url")) {
                document.put(
                        twin, attackersUrl.resolve(attackers.get(key).asText()).toString());
            } else {
                document.set(twin, attackers.get(key));
            }
        }
        byte[] body = JSON.writeValueAsBytes(document);
        origin.wireMock()
                .stubFor(get(urlEqualTo(path))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withHeader("Content-Type", "application/json")
                                .withBody(body)));
        return body;
    }

    private static ObjectNode read(FakeOrigin server, String path) throws Exception {
        HttpClient client = HttpClient.newBuilder()
                .sslContext(TrustedCertificates.sslContext(server.caCertificate()))
                .build();
        HttpResponse<byte[]> response = client.send(
                HttpRequest.newBuilder(server.discoveryUrl().resolve(path)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(path + " answered " + response.statusCode());
        }
        return (ObjectNode) JSON.readTree(response.body());
    }
}
