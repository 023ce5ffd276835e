package io.providermirror.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.net.URI;
import java.time.Duration;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

final class UrlsTest {

    @Test
    void aUrlLosesItsQueryFragmentAndUserInformationButKeepsWhereItPoints() {
        assertThat(Urls.redacted(URI.create("https://user:pw@bucket.s3.example:8443/a/b.zip?X-Amz-Signature=s#f")))
                .isEqualTo("https://bucket.s3.example:8443/a/b.zip?[redacted]");
        assertThat(Urls.redacted(URI.create("https://example.test/a/b.zip"))).isEqualTo("https://example.test/a/b.zip");
        assertThat(Urls.redacted(URI.create("https://example.test/a#only-a-fragment")))
                .isEqualTo("https://example.test/a");
    }

    @Test
    void everyUrlInATextIsRedactedAndTheRestKept() {
        assertThat(Urls.redactedIn("acme/x 1.0.0: https://h.test/x.zip?token=s answered HTTP 403 after "
                        + "'HTTP://other.test/y?sig=t', <https://u:p@z.test/> and \"https://q.test/?a=b\""))
                .isEqualTo("acme/x 1.0.0: https://h.test/x.zip?[redacted] answered HTTP 403 after "
                        + "'HTTP://other.test/y?[redacted]', <https://z.test/> and \"https://q.test/?[redacted]\"");
        assertThat(Urls.redactedIn("no URL here?a=b")).isEqualTo("no URL here?a=b");
        assertThat(Urls.redactedIn(null)).isNull();
    }

    @Test
    void redactingInsideJsonKeepsItsEscapes() {
        assertThat(Urls.redactedIn("{\"m\":\"get https://h.test/x?s=1\\\" done\"}"))
                .isEqualTo("{\"m\":\"get https://h.test/x?[redacted]\\\" done\"}");
    }

    @Test
    void aUrlRightAfterADigitAnUnderscoreOrALetterOfAnotherScriptIsRedactedToo() {
        // The regular expression before (a word boundary before the scheme) left these whole.
        assertThat(Urls.redactedIn("id9https://h.test/x?token=s")).isEqualTo("id9https://h.test/x?[redacted]");
        assertThat(Urls.redactedIn("_https://h.test/x?token=s")).isEqualTo("_https://h.test/x?[redacted]");
        assertThat(Urls.redactedIn("\u00e9https://u:p@h.test/x")).isEqualTo("\u00e9https://h.test/x");
        assertThat(Urls.redactedIn("1+://h.test/x?token=s")).isEqualTo("1+://h.test/x?token=s");
        assertThat(Urls.redactedIn("https:// h.test/x?token=s")).isEqualTo("https:// h.test/x?token=s");
    }

    @Test
    void aUrlInsideAUrlsPathLosesItsUserInformationToo() {
        assertThat(Urls.redactedIn("see http://x/https://u:p@h/a?q=s"))
                .isEqualTo("see http://x/https://h/a?[redacted]");
        // Before the scan, "_a" could not start a URL, and the one inside was found by itself.
        assertThat(Urls.redactedIn("_a://b/c://u:p@d")).isEqualTo("_a://b/c://d");
        assertThat(Urls.redactedIn("a://b/c://d://u@e/f://g@h@i")).isEqualTo("a://b/c://d://e/f://i");
    }

    @Test
    void findsWhatTheRegularExpressionWithoutAWordBoundaryFindsInRandomText() {
        // The definition the scan implements, as a regular expression, compared on texts of the characters that
        // decide: scheme characters, the separator's, the ones that end a URL, and the ones redaction looks for.
        Pattern definition = Pattern.compile("(?i)[a-z][a-z0-9+.-]*://[^\\s\"'<>`\\\\]+");
        String[] pieces = {
            "a", "Z", "h", "9", "_", "+", ".", "-", ":", "/", "://", "://", " ", "\t", "\n", "\u000B", "\f", "\r", "\"",
            "'", "<", ">", "`", "\\", "?", "#", "@", "=", "\u00e9", "\u00a0", "\u2028"
        };
        Random random = new Random(20261129);
        int urls = 0;
        for (int i = 0; i < 200_000; i++) {
            StringBuilder text = new StringBuilder();
            for (int j = random.nextInt(24); j > 0; j--) {
                text.append(pieces[random.nextInt(pieces.length)]);
            }
            String input = text.toString();
            urls += definition.matcher(input).find() ? 1 : 0;
            String redacted = Urls.redactedIn(input);
            assertThat(redacted).as(input).isEqualTo(byExpression(definition, input));
            // Nothing the redaction before the scan would have taken out is left in.
            assertThat(beforeTheScan(redacted)).as(input).isEqualTo(redacted);
        }
        assertThat(urls).as("texts with a URL in them").isGreaterThan(5_000);
    }

    @Test
    void aTextOfSeparatorsIsReadOnce() {
        // Read once for each "://", a million of them would take hours; read once, milliseconds. The same for the
        // URLs inside a URL's path, each looked at for user information.
        String separators = "://".repeat(1_000_000);
        String noSchemes = "1+://".repeat(600_000);
        String nested = "a://b" + "/x://y".repeat(500_000);
        assertThat(assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Urls.redactedIn(separators)))
                .isSameAs(separators);
        assertThat(assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Urls.redactedIn(noSchemes)))
                .isSameAs(noSchemes);
        assertThat(assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Urls.redactedIn(nested)))
                .isEqualTo(nested);
    }

    /** {@link Urls#redactedIn} before the scan: a regular expression, and each URL it found redacted alone. */
    private static String beforeTheScan(String text) {
        Matcher m = BEFORE_THE_SCAN.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String url = m.group();
            int authorityStart = url.indexOf("://") + 3;
            int end = url.length();
            int query = url.indexOf('?', authorityStart);
            int fragment = url.indexOf('#', authorityStart);
            boolean hadQuery = query >= 0 && (fragment < 0 || query < fragment);
            end = query >= 0 ? Math.min(end, query) : end;
            end = fragment >= 0 ? Math.min(end, fragment) : end;
            int pathStart = url.indexOf('/', authorityStart);
            int authorityEnd = pathStart < 0 || pathStart > end ? end : pathStart;
            int at = url.lastIndexOf('@', authorityEnd - 1);
            String redacted = url.substring(0, authorityStart)
                    + url.substring(at >= authorityStart ? at + 1 : authorityStart, end)
                    + (hadQuery ? Urls.REDACTED_QUERY : "");
            m.appendReplacement(out, Matcher.quoteReplacement(redacted));
        }
        return m.appendTail(out).toString();
    }

    private static final Pattern BEFORE_THE_SCAN = Pattern.compile("(?i)\\b[a-z][a-z0-9+.-]*://[^\\s\"'<>`\\\\]+");

    /** {@code text} with each match of {@code definition} redacted as the one URL it is. */
    private static String byExpression(Pattern definition, String text) {
        Matcher m = definition.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(Urls.redactedIn(m.group())));
        }
        return m.appendTail(out).toString();
    }
}
