package io.providermirror.server.face.providers;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.model.Platform;
import io.providermirror.upstream.DownloadDocument;
import io.providermirror.upstream.verify.OpenPgpSignatures;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * One platform's package as its origin published it, verified: what its download document said that the mirror
 * verified, and the exact bytes of the SHA256SUMS and signature it names. What the providers.v1 face hands the CLI
 * is written from these, key by key, in the protocol's spelling: nothing else the origin's document held is passed
 * on, so no key the mirror did not read (another spelling of one it did, say) reaches the CLI.
 *
 * @param document the origin's download document as the mirror read and verified it
 * @param keyIds   the ID of each of the document's signing keys, in its order: the key's primary key ID
 */
public record PublishedPackage(
        Platform platform, DownloadDocument document, List<String> keyIds, byte[] sha256Sums, byte[] signature) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public PublishedPackage {
        keyIds = List.copyOf(keyIds);
        if (keyIds.size() != document.signingKeys().size()) {
            throw new IllegalArgumentException("one key ID per signing key");
        }
    }

    /** The package of a verified {@code document}, with the SHA256SUMS and signature it names. */
    public static PublishedPackage of(DownloadDocument document, byte[] sha256Sums, byte[] signature) {
        List<String> keyIds = document.signingKeys().stream()
                .map(OpenPgpSignatures::primaryKeyId)
                .toList();
        return new PublishedPackage(document.platform(), document, keyIds, sha256Sums, signature);
    }

    /**
     * The download document the CLI gets: the keys the provider registry protocol defines, with the verified values
     * and {@code download_url}, {@code shasums_url} and {@code shasums_signature_url} pointing at these.
     */
    public byte[] render(String downloadUrl, String shasumsUrl, String signatureUrl) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(2048);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            if (!document.protocols().isEmpty()) {
                json.writeArrayFieldStart("protocols");
                for (String protocol : document.protocols()) {
                    json.writeString(protocol);
                }
                json.writeEndArray();
            }
            json.writeStringField("os", platform.os());
            json.writeStringField("arch", platform.arch());
            json.writeStringField("filename", document.filename());
            json.writeStringField("download_url", downloadUrl);
            json.writeStringField("shasums_url", shasumsUrl);
            json.writeStringField("shasums_signature_url", signatureUrl);
            json.writeStringField("shasum", document.shasum());
            json.writeObjectFieldStart("signing_keys");
            json.writeArrayFieldStart("gpg_public_keys");
            for (int i = 0; i < keyIds.size(); i++) {
                json.writeStartObject();
                json.writeStringField("key_id", keyIds.get(i));
                json.writeStringField("ascii_armor", document.signingKeys().get(i));
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
