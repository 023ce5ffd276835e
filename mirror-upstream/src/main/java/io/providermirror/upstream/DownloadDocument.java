package io.providermirror.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import io.providermirror.model.Platform;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * An origin's answer to {@code :namespace/:type/:version/download/:os/:arch}: where the package and its
 * signed checksums are, with URLs already resolved against the document's own URL, and the signing keys. It is
 * read as the CLI reads it ({@link OriginJson}): a document whose keys collide ignoring case is refused, and each
 * field is the one the CLI would take.
 *
 * @param protocols the plugin protocol versions it names, as {@link VersionList} keeps them
 */
public record DownloadDocument(
        Platform platform,
        List<String> protocols,
        String filename,
        URI downloadUrl,
        URI shasumsUrl,
        URI shasumsSignatureUrl,
        String shasum,
        List<String> signingKeys) {

    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-fA-F]{64}");

    public DownloadDocument {
        protocols = List.copyOf(protocols);
        signingKeys = List.copyOf(signingKeys);
    }

    /**
     * Parses a download document.
     *
     * @param documentUrl the final URL the document was read from; relative URLs resolve against it
     * @param what        how to name the document in errors
     */
    public static DownloadDocument parse(Platform platform, URI documentUrl, byte[] body, String what) {
        JsonNode root = OriginJson.read(body, what);
        if (!root.isObject()) {
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
        echoes(root, "os", platform.os(), platform, what);
        echoes(root, "arch", platform.arch(), platform, what);
        List<String> keys = new ArrayList<>();
        for (JsonNode key : OriginJson.member(OriginJson.member(root, "signing_keys"), "gpg_public_keys")) {
            JsonNode armor = OriginJson.member(key, "ascii_armor");
            if (armor.isTextual() && !armor.asText().isBlank()) {
                keys.add(armor.asText());
            }
        }
        return new DownloadDocument(
                platform,
                VersionList.protocols(root),
                filename,
                url(documentUrl, root, "download_url", what),
                url(documentUrl, root, "shasums_url", what),
                url(documentUrl, root, "shasums_signature_url", what),
                shasum.toLowerCase(Locale.ROOT),
                keys);
    }

    /**
     * Refuses a document whose {@code os} or {@code arch} is not the platform asked for: the CLI refuses it too, and
     * the mirror writes the platform's own.
     */
    private static void echoes(JsonNode root, String field, String expected, Platform platform, String what) {
        JsonNode node = OriginJson.member(root, field);
        if (!node.isMissingNode() && !(node.isTextual() && node.asText().equals(expected))) {
            throw new OriginException(
                    OriginException.Reason.BAD_RESPONSE,
                    what + ": its '" + field + "' is " + node + ", but the document was asked for " + platform);
        }
    }

    private static String text(JsonNode root, String field, String what) {
        JsonNode node = OriginJson.member(root, field);
        if (!node.isTextual() || node.asText().isEmpty()) {
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
