package io.providermirror.upstream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * JSON from outside the mirror (origins, parent mirrors, discovery, bundles) read as the CLI reads it, or refused.
 * The CLI decodes with Go's {@code encoding/json}, which matches an object's keys to a struct's fields ignoring case
 * (Unicode simple folding: {@code ſ} is {@code s}, the Kelvin sign is {@code k}) and lets the last of several
 * matching keys win; Jackson matches exactly. So a document with {@code "download_url"} and {@code "DOWNLOAD_URL"}
 * reads as two different documents to the two. Here any object whose keys collide that way, or repeat exactly, is
 * refused, as is anything else the two decoders read differently: text that is not UTF-8 or starts with a byte
 * order mark, content after the document, and unpaired surrogate escapes (Go reads them as U+FFFD). With collisions
 * refused, {@link #member} finds a field as Go does: the key spelt exactly, else the one key that folds to it.
 */
public final class OriginJson {

    private static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .build();

    private OriginJson() {}

    /** A document that is not JSON as the CLI reads it, or reads differently to the CLI than to Jackson. */
    public static final class RefusedJsonException extends JsonProcessingException {
        private static final long serialVersionUID = 1L;

        RefusedJsonException(String message) {
            super(message);
        }
    }

    /**
     * Reads {@code body}, an origin's document named {@code what} in errors.
     *
     * @throws OriginException (BAD_RESPONSE) naming {@code what} and the reason, for a document that is not valid
     *     JSON or that the CLI would read differently
     */
    public static JsonNode read(byte[] body, String what) {
        try {
            return readTree(body);
        } catch (RefusedJsonException e) {
            throw new OriginException(OriginException.Reason.BAD_RESPONSE, what + " " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new OriginException(
                    OriginException.Reason.BAD_RESPONSE,
                    what + " is not valid JSON: "
                            + e.getMessage().lines().findFirst().orElse(""),
                    e);
        }
    }

    /** Reads {@code body} as a tree, refusing what the CLI would read differently. */
    public static JsonNode readTree(byte[] body) throws IOException {
        String text = utf8(body);
        JsonNode root = STRICT.readTree(text);
        if (root == null) {
            return MissingNode.getInstance();
        }
        check(root, "");
        return root;
    }

    /** Reads {@code body} into {@code type} after the checks of {@link #readTree}; keys bind exactly. */
    public static <T> T readValue(byte[] body, Class<T> type) throws IOException {
        return STRICT.treeToValue(readTree(body), type);
    }

    /** As {@link #readValue(byte[], Class)}, for a generic type. */
    public static <T> T readValue(byte[] body, TypeReference<T> type) throws IOException {
        return STRICT.readerFor(type).readValue(readTree(body));
    }

    /**
     * The member of {@code object} that Go's decoder gives a struct field named {@code name}: the key spelt exactly,
     * else the key that equals it ignoring case; missing when there is none, or when {@code object} is no object.
     * Only for documents read here, whose keys never collide.
     */
    public static JsonNode member(JsonNode object, String name) {
        if (object == null || !object.isObject()) {
            return MissingNode.getInstance();
        }
        JsonNode exact = object.get(name);
        if (exact != null) {
            return exact;
        }
        String folded = fold(name);
        for (Map.Entry<String, JsonNode> field : object.properties()) {
            if (fold(field.getKey()).equals(folded)) {
                return field.getValue();
            }
        }
        return MissingNode.getInstance();
    }

    /**
     * A key as Go's {@code encoding/json} folds it to match fields: each code point lowered then raised with the
     * simple (one to one) Unicode case mappings, as Go's {@code unicode.ToUpper(unicode.ToLower(r))}.
     */
    static String fold(String key) {
        StringBuilder folded = new StringBuilder(key.length());
        key.codePoints().forEach(cp -> folded.appendCodePoint(Character.toUpperCase(Character.toLowerCase(cp))));
        return folded.toString();
    }

    private static String utf8(byte[] body) throws RefusedJsonException {
        if (body.length >= 3 && (body[0] & 0xff) == 0xef && (body[1] & 0xff) == 0xbb && (body[2] & 0xff) == 0xbf) {
            throw new RefusedJsonException("starts with a byte order mark, which the CLI's JSON decoder refuses");
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(body))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new RefusedJsonException(
                    "is not UTF-8 text (the CLI's JSON decoder would read it differently than the mirror)");
        }
    }

    private static void check(JsonNode node, String path) throws RefusedJsonException {
        if (node.isTextual()) {
            checkText(node.textValue(), "a value at " + where(path));
        } else if (node.isArray()) {
            int index = 0;
            for (JsonNode element : node) {
                check(element, path + "[" + index++ + "]");
            }
        } else if (node.isObject()) {
            Map<String, String> byFold = new HashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> fields =
                            node.properties().iterator();
                    fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                String key = field.getKey();
                checkText(key, "the key \"" + key + "\" at " + where(path));
                String earlier = byFold.putIfAbsent(fold(key), key);
                if (earlier != null) {
                    throw new RefusedJsonException("has the keys \"" + earlier + "\" and \"" + key + "\" in "
                            + where(path) + ", which differ only in case: the CLI's JSON decoder reads them as one "
                            + "field (the last one winning), so the document is refused");
                }
                check(field.getValue(), path.isEmpty() ? key : path + "." + key);
            }
        }
    }

    private static void checkText(String text, String what) throws RefusedJsonException {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new RefusedJsonException("has an unpaired surrogate escape in " + what
                        + ", which the CLI's JSON decoder reads as U+FFFD, so the document is refused");
            }
        }
    }

    private static String where(String path) {
        return path.isEmpty() ? "the top-level object" : "\"" + path + "\"";
    }
}
