package io.providermirror.server.core;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.model.Platform;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Set;

/**
 * One platform's package as its origin published it, verified: the origin's download document, and the exact bytes
 * of the SHA256SUMS and signature it names. What the providers.v1 face hands the CLI, with only the three URLs of
 * the download document changed to point at the mirror.
 *
 * @param downloadDocument the origin's download document, parsed; never modified (every rendering writes anew)
 */
public record PublishedPackage(Platform platform, ObjectNode downloadDocument, byte[] sha256Sums, byte[] signature) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The fields of a download document that name where its files are: the ones the mirror rewrites. */
    static final Set<String> URL_FIELDS = Set.of("download_url", "shasums_url", "shasums_signature_url");

    /**
     * The origin's download document with {@code download_url}, {@code shasums_url} and
     * {@code shasums_signature_url} replaced by these; every other field as the origin served it, in its order.
     */
    public byte[] render(String downloadUrl, String shasumsUrl, String signatureUrl) {
        Map<String, String> urls =
                Map.of("download_url", downloadUrl, "shasums_url", shasumsUrl, "shasums_signature_url", signatureUrl);
        ByteArrayOutputStream out = new ByteArrayOutputStream(2048);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            for (Map.Entry<String, JsonNode> field : downloadDocument.properties()) {
                String url = urls.get(field.getKey());
                if (url != null) {
                    json.writeStringField(field.getKey(), url);
                } else {
                    json.writeFieldName(field.getKey());
                    JSON.writeTree(json, field.getValue());
                }
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
