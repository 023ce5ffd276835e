package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Origin JSON is read as Go's {@code encoding/json} (the CLI's decoder) reads it, or refused: keys that collide
 * ignoring case (as Go folds them) or repeat, and text the two decoders read differently.
 */
final class OriginJsonTest {

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String refusal(String json) {
        OriginException e = (OriginException)
                org.assertj.core.api.Assertions.catchThrowable(() -> OriginJson.read(utf8(json), "the document"));
        assertThat(e).as(json).isNotNull();
        assertThat(e.reason()).isEqualTo(OriginException.Reason.BAD_RESPONSE);
        return e.getMessage();
    }

    @Test
    void keysThatDifferOnlyInCaseAreRefusedNamingBothAndWhere() {
        assertThat(refusal("{\"download_url\":\"a\",\"DOWNLOAD_URL\":\"b\"}"))
                .startsWith("the document has the keys \"download_url\" and \"DOWNLOAD_URL\" in the top-level object")
                .contains("differ only in case");
        assertThat(refusal("{\"signing_keys\":{\"gpg_public_keys\":[{\"ascii_armor\":\"a\"},"
                        + "{\"ascii_armor\":\"a\",\"Ascii_Armor\":\"b\"}]}}"))
                .contains("\"ascii_armor\" and \"Ascii_Armor\" in \"signing_keys.gpg_public_keys[1]\"");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                // U+017F LATIN SMALL LETTER LONG S folds to S, U+212A KELVIN SIGN to K, as in Go.
                "{\"shasum\":\"a\",\"\u017Fhasum\":\"b\"}",
                "{\"key_id\":\"a\",\"\u212Aey_id\":\"b\"}",
                "{\"os\":\"a\",\"OS\":\"b\"}",
            })
    void keysThatGoFoldsAlikeAreRefused(String json) {
        assertThat(refusal(json)).contains("differ only in case");
    }

    @Test
    void repeatedKeysAreRefused() {
        assertThat(refusal("{\"shasum\":\"a\",\"shasum\":\"b\"}")).contains("shasum");
        assertThat(refusal("{\"a\":[{\"x\":1,\"x\":2}]}")).contains("x");
    }

    @Test
    void textTheTwoDecodersReadDifferentlyIsRefused() {
        assertThat(refusal("\uFEFF{\"a\":1}")).contains("byte order mark");
        assertThat(refusal("{\"a\":\"\\ud800\"}")).contains("surrogate");
        assertThat(refusal("{\"a\":1} {\"a\":2}")).contains("not valid JSON");
        assertThatThrownBy(() -> OriginJson.read(new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xff, '"', '}'}, "x"))
                .hasMessageContaining("not UTF-8");
        assertThatThrownBy(() -> OriginJson.read("{\"a\":1}".getBytes(StandardCharsets.UTF_16BE), "the document"))
                .isInstanceOf(OriginException.class);
    }

    @Test
    void keysThatDifferBeyondCaseAndSurrogatePairsAreRead() {
        JsonNode root = OriginJson.read(
                utf8(
                        "{\"download_url\":\"a\",\"download-url\":\"b\",\"1.0.0\":{},\"1.0.1\":{},\"e\":\"\uD83D\uDE00\"}"),
                "the document");
        assertThat(root.size()).isEqualTo(5);
    }

    @Test
    void aMemberIsFoundAsGoFindsAStructField() {
        JsonNode root = OriginJson.read(utf8("{\"Download_URL\":\"a\",\"\u017Fhasum\":\"b\",\"os\":\"c\"}"), "d");
        assertThat(OriginJson.member(root, "download_url").asText()).isEqualTo("a");
        assertThat(OriginJson.member(root, "shasum").asText()).isEqualTo("b");
        assertThat(OriginJson.member(root, "os").asText()).isEqualTo("c");
        assertThat(OriginJson.member(root, "arch").isMissingNode()).isTrue();
        assertThat(OriginJson.member(root.get("os"), "x").isMissingNode()).isTrue();
    }

    @Test
    void valuesAreBoundAfterTheSameChecks() throws Exception {
        assertThat(OriginJson.readValue(utf8("{\"a\":\"b\"}"), new TypeReference<Map<String, String>>() {}))
                .isEqualTo(Map.of("a", "b"));
        assertThatThrownBy(() -> OriginJson.readValue(utf8("{\"a\":\"b\",\"A\":\"c\"}"), Map.class))
                .isInstanceOf(OriginJson.RefusedJsonException.class)
                .hasMessageContaining("differ only in case");
    }

    @Test
    void aKeyIsCheckedAsAValueIs() {
        assertThat(refusal("{\"\\ud800\":1}"))
                .contains("has an unpaired surrogate escape in the key \"\ud800\" at the top-level object");
        assertThat(refusal("{\"a\":{\"b\":[\"\\udc00\"]}}")).contains("in a value at \"a.b[0]\"");
    }

    @Test
    void aByteOrderMarkAloneIsRefusedAsOne() {
        assertThatThrownBy(() -> OriginJson.read(new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf}, "the document"))
                .hasMessageContaining("byte order mark");
    }

    @Test
    void aTreeAndAValueOfAGivenClassAreReadAfterTheSameChecks() throws Exception {
        assertThat(OriginJson.readTree(utf8("{\"a\":[1,2]}")).get("a").size()).isEqualTo(2);
        assertThat(OriginJson.readTree(utf8("")).isMissingNode()).isTrue();
        assertThat(OriginJson.readValue(utf8("{\"a\":\"b\"}"), Object.class)).isEqualTo(Map.of("a", "b"));
        assertThatThrownBy(() -> OriginJson.readTree(utf8("{\"a\":1,\"A\":2}")))
                .isInstanceOf(OriginJson.RefusedJsonException.class);
    }
}
