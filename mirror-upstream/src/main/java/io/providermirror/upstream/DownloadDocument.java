package io.providermirror.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.model.Platform;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * An origin's answer to {@code :namespace/:type/:version/download/:os/:arch}: where the package and its
 * signed checksums are, with URLs already resolved against the document's own URL, and the signing keys.
 */
public record DownloadDocument(
        Platform platform,
        String filename,
        URI downloadUrl,
        URI shasumsUrl,
        URI shasumsSignatureUrl,
        String shasum,
        List<String> signingKeys) {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-fA-F]{64}");

    public DownloadDocument {
        signingKeys = List.copyOf(signingKeys);
    }

    /**
     * Parses a download document.
     *
     * @param documentUrl the final URL the document was read from; relative URLs resolve against it
     * @param what        how to name the document in errors
     */
    public static DownloadDocument parse(Platform platform, URI documentUrl, byte[] body, String what) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException e) {
            throw new OriginException(OriginException.Reason.BAD_RESPONSE, what + " is not valid JSON", e);
        }
        if (root == null || !root.isObject()) {
            throw new OriginException(OriginException.Reason.BAD_RESPONSE, what + " is not a JSON object");
        }
        String filename = text(root, "filename", what);
        if (filename.contains("/") || filename.contains("\\") || filename.contains("\n")) {
            throw new OriginException(
                    OriginException.Reason.BAD_RESPONSE, what + ": filename '" + filename + "' is not a file name");
        }
        String shasum = text(root, "shasum", what);
        if (!SHA256_HEX.matcher(shasum).matches()) {
            throw new OriginException(OriginException.Reason.BAD_RESPONSE, what + ": shasum is not a hex sha256");
        }
        List<String> keys = new ArrayList<>();
        for (JsonNode key : root.path("signing_keys").path("gpg_public_keys")) {
            JsonNode armor = key.get("ascii_armor");
            if (armor != null && armor.isTextual() && !armor.asText().isBlank()) {
                keys.add(armor.asText());
            }
        }
        return new DownloadDocument(
                platform,
                filename,
                url(documentUrl, root, "download_url", what),
                url(documentUrl, root, "shasums_url", what),
                url(documentUrl, root, "shasums_signature_url", what),
                shasum.toLowerCase(Locale.ROOT),
                keys);
    }

    private static String text(JsonNode root, String field, String what) {
        JsonNode node = root.get(field);
        if (node == null || !node.isTextual() || node.asText().isEmpty()) {
            throw new OriginException(OriginException.Reason.BAD_RESPONSE, what + " has no '" + field + "'");
        }
        return node.asText();
    }

    private static URI url(URI base, JsonNode root, String field, String what) {
        String value = text(root, field, what);
        try {
            return base.resolve(value);
        } catch (IllegalArgumentException e) {
            throw new OriginException(
                    OriginException.Reason.BAD_RESPONSE,
                    what + ": " + field + " '" + value + "' is not a valid URL",
                    e);
        }
    }
}
