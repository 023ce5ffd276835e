package io.providermirror.model;

import java.net.URI;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * URLs as the mirror may show them in text: logs, error bodies, the status page. Download URLs are often
 * pre-signed ({@code ?X-Amz-Signature=...}, {@code ?token=...}) and open a file to whoever holds them, and a
 * URL may carry {@code user:password@}; so the query, the fragment and any user information are left out,
 * and what remains (scheme, host, port, path) still tells an operator which request failed.
 */
public final class Urls {

    /** Stands where a query string was. */
    public static final String REDACTED_QUERY = "?[redacted]";

    /**
     * An absolute URL inside free text: it ends at white space or at a character that cannot be part of a
     * URL and commonly closes one in prose or markup (quotes, angle brackets), or starts an escape in JSON
     * (a backslash), so redacting inside a JSON document keeps it valid.
     */
    private static final Pattern URL_IN_TEXT = Pattern.compile("(?i)\\b[a-z][a-z0-9+.-]*://[^\\s\"'<>`\\\\]+");

    private Urls() {}

    /** {@code uri} without its query, fragment and user information. */
    public static String redacted(URI uri) {
        return uri == null ? "null" : redactedUrl(uri.toString());
    }

    /** {@code text} with every absolute URL in it {@linkplain #redacted(URI) redacted}; null stays null. */
    public static String redactedIn(String text) {
        if (text == null || text.indexOf("://") < 0) {
            return text;
        }
        Matcher m = URL_IN_TEXT.matcher(text);
        StringBuilder out = new StringBuilder(text.length());
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(redactedUrl(m.group())));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String redactedUrl(String url) {
        int schemeEnd = url.indexOf("://");
        int authorityStart = schemeEnd < 0 ? 0 : schemeEnd + 3;
        int end = url.length();
        int query = url.indexOf('?', authorityStart);
        int fragment = url.indexOf('#', authorityStart);
        boolean hadQuery = query >= 0 && (fragment < 0 || query < fragment);
        if (query >= 0) {
            end = Math.min(end, query);
        }
        if (fragment >= 0) {
            end = Math.min(end, fragment);
        }
        int pathStart = url.indexOf('/', authorityStart);
        int authorityEnd = pathStart < 0 || pathStart > end ? end : pathStart;
        int at = url.lastIndexOf('@', authorityEnd - 1);
        StringBuilder out = new StringBuilder(end + REDACTED_QUERY.length());
        out.append(url, 0, authorityStart);
        out.append(url, at >= authorityStart ? at + 1 : authorityStart, end);
        if (hadQuery) {
            out.append(REDACTED_QUERY);
        }
        return out.toString();
    }
}
